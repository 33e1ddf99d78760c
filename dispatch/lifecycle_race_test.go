package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/store"
)

// claimWatch passes every call to the store's queue and records, for each claim, when the
// call started (a tick of a global sequence) and which To Dos it took. It only observes.
type claimWatch struct {
	answerdesk.ToDoQueue
	seq *atomic.Int64

	mu     sync.Mutex
	claims []claimSeen
}

type claimSeen struct {
	startSeq int64
	toDoID   int64
	key      string
}

func (w *claimWatch) ClaimOccurrences(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*answerdesk.Occurrence, error) {
	start := w.seq.Add(1)
	occs, err := w.ToDoQueue.ClaimOccurrences(ctx, now, lease, limit)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range occs {
		w.claims = append(w.claims, claimSeen{start, o.ToDo.ID, o.Key})
	}
	return occs, err
}

// stopWindow is when a To Do must not start an occurrence: from the return of a pause
// (or cancel) to the start of the next resume (never, for a cancel).
type stopWindow struct{ from, to int64 }

// TestToDoLifecycleRacesTwoSchedulers races pause, resume, update and cancel from many
// goroutines against two schedulers over one SQLite file (two store.DB handles, as two
// processes would have), with the clock running through many occurrences. It checks the
// contract's promise: an occurrence is sent once, and no claim that started after a
// pause or cancel was answered takes that To Do (until it is resumed); after the cancels
// no send happens at all however far the clock moves.
func TestToDoLifecycleRacesTwoSchedulers(t *testing.T) {
	app := testapp.New(t)
	ctx := context.Background()
	db2 := app.OpenDB(t)

	var seq atomic.Int64
	var sends, failures atomic.Int64
	perKey := sync.Map{}
	// One send in three fails for a while, so occurrences wait for retries: the waiting
	// ones are what a pause or cancel must stop.
	send := &funcChannel{send: func(o *answerdesk.Occurrence) error {
		if rand.IntN(3) == 0 {
			failures.Add(1)
			return errors.New("provider busy")
		}
		sends.Add(1)
		n, _ := perKey.LoadOrStore(o.Key, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		return nil
	}}
	watches := []*claimWatch{{ToDoQueue: app.ToDos, seq: &seq}, {ToDoQueue: store.NewToDoService(db2), seq: &seq}}
	var schedulers []*dispatch.Scheduler
	for _, w := range watches {
		// A lease longer than the test, so a slow send is never taken over by the other
		// scheduler: this test is about lifecycle changes, lease expiry has its own.
		schedulers = append(schedulers, &dispatch.Scheduler{Queue: w, Outbox: send, Now: app.Clock.Now, Logger: quiet,
			Lease: 1000 * time.Hour, Workers: 4, Batch: 16, Backoff: []time.Duration{30 * time.Minute, 90 * time.Minute, 3 * time.Hour}})
	}

	const toDos, mutators = 24, 6
	hourly := make([]string, 24)
	for h := range hourly {
		hourly[h] = fmt.Sprintf("%02d:00", h)
	}
	times, _ := json.Marshal(hourly)
	ids := make([]int64, toDos)
	for i := range ids {
		ids[i] = app.CreateToDo(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","delivery_type":"call","instructions":"race %d","schedule":{"frequency":"daily","times":%s}}`,
			i, times)).ID
	}

	var winMu sync.Mutex
	windows := map[int64][]stopWindow{}
	caller := app.Caller(t, app.Alice)

	stop := make(chan struct{})
	var bg sync.WaitGroup
	for _, s := range schedulers {
		bg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Two handles on one SQLite file can starve each other past the busy
				// timeout under load (the race detector, a busy machine); Run logs such a
				// tick and goes on, and so does this loop: the test is about correctness.
				if _, err := s.Tick(ctx); err != nil {
					t.Logf("tick: %v", err)
				}
				// A short poll, as Run has: a scheduler that never pauses would keep the
				// database's write lock to itself and the other would rarely get a turn.
				time.Sleep(3 * time.Millisecond)
			}
		})
	}
	bg.Go(func() { // the clock: an hour (one occurrence of every To Do) every few milliseconds, for ten days
		for range 240 {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
				app.Clock.Advance(time.Hour)
			}
		}
	})

	var mut sync.WaitGroup
	for m := range mutators {
		mut.Go(func() {
			r := rand.New(rand.NewPCG(uint64(m), 16))
			mine := ids[m*toDos/mutators : (m+1)*toDos/mutators]
			for range 60 {
				id := mine[r.IntN(len(mine))]
				sid := strconv.FormatInt(id, 10)
				switch r.IntN(4) {
				case 0:
					if err := retryBusy(func() error { _, err := app.ToDos.PauseToDo(ctx, caller, sid); return err }); err != nil {
						t.Error(err)
						return
					}
					winMu.Lock()
					if w := windows[id]; len(w) == 0 || w[len(w)-1].to != 0 {
						windows[id] = append(w, stopWindow{from: seq.Add(1)})
					}
					winMu.Unlock()
				case 1:
					winMu.Lock()
					if w := windows[id]; len(w) > 0 && w[len(w)-1].to == 0 {
						w[len(w)-1].to = seq.Add(1)
					}
					winMu.Unlock()
					if err := retryBusy(func() error { _, err := app.ToDos.ResumeToDo(ctx, caller, sid); return err }); err != nil {
						t.Error(err)
						return
					}
				case 2:
					p, _ := answerdesk.ParseToDoPatch([]byte(`{"instructions":"changed","schedule":{"frequency":"daily","times":["00:30","06:30","12:30","18:30"]}}`))
					if err := retryBusy(func() error { _, err := app.ToDos.UpdateToDo(ctx, caller, sid, p); return err }); err != nil {
						t.Error(err)
						return
					}
				default:
					time.Sleep(time.Millisecond)
				}
			}
			// In the end every To Do is cancelled: from then on nothing of it may start.
			for _, id := range mine {
				if err := retryBusy(func() error { _, err := app.ToDos.CancelToDo(ctx, caller, strconv.FormatInt(id, 10)); return err }); err != nil {
					t.Error(err)
					return
				}
				winMu.Lock()
				w := windows[id]
				if len(w) > 0 && w[len(w)-1].to == 0 {
					w = w[:len(w)-1] // a pause that was never resumed: the cancel's window covers it
				}
				windows[id] = append(w, stopWindow{from: seq.Add(1), to: 1 << 62})
				winMu.Unlock()
			}
		})
	}
	mut.Wait()
	close(stop)
	bg.Wait()

	before := sends.Load()
	if before == 0 {
		t.Fatal("nothing was sent: the race exercised nothing")
	}
	// Far into the future: cancelled To Dos send nothing, whichever scheduler looks.
	for range 20 {
		app.Clock.Advance(6 * time.Hour)
		for _, s := range schedulers {
			tick(t, s)
		}
	}
	if after := sends.Load(); after != before {
		t.Fatalf("%d sends after every To Do was cancelled", after-before)
	}

	for _, w := range watches {
		for _, c := range w.claims {
			for _, win := range windows[c.toDoID] {
				if c.startSeq > win.from && (win.to == 0 || c.startSeq < win.to) {
					t.Errorf("to-do %d: occurrence %s claimed by a claim that started (seq %d) after a pause or cancel was answered (window %d..%d)",
						c.toDoID, c.key, c.startSeq, win.from, win.to)
				}
			}
		}
	}
	perKey.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Load(); n != 1 {
			t.Errorf("occurrence %s sent %d times", k, n)
		}
		return true
	})
	t.Logf("%d sends, %d failed attempts, %d claims by scheduler 1, %d by scheduler 2", before, failures.Load(), len(watches[0].claims), len(watches[1].claims))
	for _, id := range ids {
		if got := reload(t, app, id); got.State != answerdesk.ToDoCancelled || got.Schedule.NextOccurrence != nil {
			t.Errorf("to-do %d: state %s next %v", id, got.State, got.Schedule.NextOccurrence)
		}
	}
}

// retryBusy retries f while SQLite answers "database is locked" (see the tick loop).
func retryBusy(f func() error) error {
	for {
		err := f()
		if err == nil || !strings.Contains(err.Error(), "database is locked") {
			return err
		}
	}
}

// funcChannel is a channel that calls send for every occurrence; its error is the send's.
type funcChannel struct {
	send func(*answerdesk.Occurrence) error
}

func (c *funcChannel) Name() string { return "outbox" }
func (c *funcChannel) Send(_ context.Context, o *answerdesk.Occurrence) (string, error) {
	if err := c.send(o); err != nil {
		return "", err
	}
	return "ok-" + o.Key, nil
}
