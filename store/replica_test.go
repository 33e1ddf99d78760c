package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

var (
	keyA = []byte(strings.Repeat("a", 32))
	keyB = []byte(strings.Repeat("b", 32))
)

// openReplicaDB is a fresh database first served with keyA, on a clock the test moves.
func openReplicaDB(t *testing.T, engine string) (*DB, *testClock) {
	t.Helper()
	db := openTestDB(t, engine, "replicas.db")
	clock := &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	db.Now = clock.Now
	if err := db.CheckSigningKey(context.Background(), keyA); err != nil {
		t.Fatal(err)
	}
	return db, clock
}

// TestForgetSigningKeyWhileReplicasRun: db reset-signing-key forgets the key only when no
// replica runs: one that beats, or died less than StaleBeats intervals ago, holds it up
// and is named; one that stopped cleanly, or whose heartbeats stopped long enough ago,
// does not.
func TestForgetSigningKeyWhileReplicasRun(t *testing.T) {
	const interval = 5 * time.Second
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		for _, tc := range []struct {
			name string
			// run starts the replicas and stops some; it returns those that must be named.
			run     func(t *testing.T, db *DB, clock *testClock) []*Replica
			refused bool
		}{
			{"no replica ever ran", func(*testing.T, *DB, *testClock) []*Replica { return nil }, false},
			{"a replica beats", func(t *testing.T, db *DB, clock *testClock) []*Replica {
				r := register(t, db, interval)
				clock.add(interval)
				beat(t, db, r)
				clock.add(interval / 2)
				return []*Replica{r}
			}, true},
			{"a replica stopped cleanly", func(t *testing.T, db *DB, _ *testClock) []*Replica {
				if err := db.RemoveReplica(context.Background(), register(t, db, interval)); err != nil {
					t.Fatal(err)
				}
				return nil
			}, false},
			{"a replica died within its stale beats", func(t *testing.T, db *DB, clock *testClock) []*Replica {
				r := register(t, db, interval)
				clock.add(StaleBeats*interval - time.Millisecond)
				return []*Replica{r}
			}, true},
			{"a replica died longer ago", func(t *testing.T, db *DB, clock *testClock) []*Replica {
				register(t, db, interval)
				clock.add(StaleBeats * interval)
				return nil
			}, false},
			{"one of two replicas stopped", func(t *testing.T, db *DB, clock *testClock) []*Replica {
				gone, left := register(t, db, interval), register(t, db, interval)
				if err := db.RemoveReplica(context.Background(), gone); err != nil {
					t.Fatal(err)
				}
				clock.add(time.Second)
				return []*Replica{left}
			}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				db, clock := openReplicaDB(t, engine)
				named := tc.run(t, db, clock)
				forgot, err := db.ForgetSigningKey(ctx)
				if !tc.refused {
					if err != nil || !forgot {
						t.Fatalf("forget: %v %v, want the key forgotten", forgot, err)
					}
					return
				}
				var running *ReplicasRunningError
				if !errors.As(err, &running) || forgot || len(running.Replicas) != len(named) {
					t.Fatalf("forget: %v %v, want a refusal naming %d replicas", forgot, err, len(named))
				}
				for _, r := range named {
					if want := fmt.Sprintf("%s pid %d", r.Host, r.PID); !strings.Contains(err.Error(), want) {
						t.Errorf("the refusal does not name %q: %v", want, err)
					}
				}
				if !strings.Contains(err.Error(), "stop every serve on the database first") {
					t.Errorf("the refusal does not say what to do: %v", err)
				}
				if err := db.CheckSigningKey(ctx, keyA); err != nil {
					t.Fatalf("the key was forgotten all the same: %v", err)
				}
			})
		}
	})
}

// TestBeatNoticesTheKeyChanged: the attack the heartbeat stops. A replica with key A
// pauses past its stale beats; db reset-signing-key then goes through, and a replica with
// key B starts and records B. The first replica's next beat reports ErrSigningKeyChanged
// (and renews nothing), whether it sees the key only forgotten or already replaced, so it
// stops instead of sealing with A secrets that B's replicas cannot open.
func TestBeatNoticesTheKeyChanged(t *testing.T) {
	const interval = time.Second
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		for _, tc := range []struct {
			name      string
			replaced  bool
			wantCause string
		}{
			{"forgotten", false, "none is recorded"},
			{"replaced by another key", true, "another key's fingerprint is recorded"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				db, clock := openReplicaDB(t, engine)
				a := register(t, db, interval)
				clock.add(interval)
				beat(t, db, a) // the key is the database's: it goes on
				clock.add(StaleBeats*interval + time.Millisecond)
				if forgot, err := db.ForgetSigningKey(ctx); err != nil || !forgot {
					t.Fatalf("forget after the replica went quiet: %v %v", forgot, err)
				}
				if tc.replaced {
					if err := db.CheckSigningKey(ctx, keyB); err != nil {
						t.Fatalf("a replica with key B starts: %v", err)
					}
				}
				err := db.Beat(ctx, a)
				if !errors.Is(err, ErrSigningKeyChanged) || !strings.Contains(err.Error(), tc.wantCause) {
					t.Fatalf("beat after the key %s: %v, want ErrSigningKeyChanged saying %q", tc.name, err, tc.wantCause)
				}
				if live, err := db.LiveReplicas(ctx); err != nil || len(live) != 0 {
					t.Fatalf("the replica's row was renewed: %v %v", live, err)
				}
			})
		}
	})
}

// TestBeatAndForgetNeverBothGoThrough: a beat that comes back just as a reset runs either
// renews the replica (and the reset refuses) or finds the key forgotten (and the replica
// stops); never both, though the beat reads the key and the reset reads the replicas.
func TestBeatAndForgetNeverBothGoThrough(t *testing.T) {
	const interval = time.Second
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		for i := range 20 {
			db, clock := openReplicaDB(t, engine)
			r := register(t, db, interval)
			clock.add(StaleBeats*interval + time.Millisecond)
			var wg sync.WaitGroup
			var beatErr, forgetErr error
			var forgot bool
			wg.Go(func() { beatErr = db.Beat(ctx, r) })
			wg.Go(func() { forgot, forgetErr = db.ForgetSigningKey(ctx) })
			wg.Wait()
			if beatErr == nil && forgot {
				t.Fatalf("round %d: the replica beat and the key was forgotten", i)
			}
			var running *ReplicasRunningError
			if (beatErr != nil && !errors.Is(beatErr, ErrSigningKeyChanged)) || (forgetErr != nil && !errors.As(forgetErr, &running)) {
				t.Fatalf("round %d: beat %v, forget %v", i, beatErr, forgetErr)
			}
		}
	})
}

// TestRegisterReplica: a replica records its host, pid and key fingerprint; rows of
// replicas that stopped without removing themselves go after a day.
func TestRegisterReplica(t *testing.T) {
	const interval = time.Second
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		db, clock := openReplicaDB(t, engine)
		old := register(t, db, interval)
		clock.add(25 * time.Hour)
		r := register(t, db, interval)
		host, _ := os.Hostname()
		live, err := db.LiveReplicas(ctx)
		if err != nil || len(live) != 1 || live[0].ID != r.ID || live[0].Host != host || live[0].PID != os.Getpid() ||
			live[0].KeyFingerprint != KeyFingerprint(keyA) || !live[0].StartedAt.Equal(clock.Now()) {
			t.Fatalf("live replicas: %+v %v", live, err)
		}
		var n int
		if err := db.read.QueryRow(`SELECT count(*) FROM replicas WHERE id = ?`, old.ID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("a row a day old: %d %v", n, err)
		}
		if _, err := db.RegisterReplica(ctx, keyB, time.Second); !errors.Is(err, ErrSigningKeyChanged) {
			t.Fatalf("a replica with another key registers: %v", err)
		}
	})
}

// register registers a replica with keyA that beats every interval.
func register(t *testing.T, db *DB, interval time.Duration) *Replica {
	t.Helper()
	r, err := db.RegisterReplica(context.Background(), keyA, interval)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func beat(t *testing.T, db *DB, r *Replica) {
	t.Helper()
	if err := db.Beat(context.Background(), r); err != nil {
		t.Fatal(err)
	}
}
