package dispatch_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newScheduler returns a scheduler over app's store with the outbox as every channel.
func newScheduler(app *testapp.App) *dispatch.Scheduler {
	return &dispatch.Scheduler{Queue: app.ToDos, Outbox: dispatch.NewOutboxChannel(quiet), Now: app.Clock.Now, Logger: quiet}
}

// smsNow is an SMS To Do of account 1001 due at once.
const smsNow = `{"account_number":"1001","delivery_type":"sms","from":"5550101001","contact":"+15555550123","message_text":"hi","schedule":{"rule":"immediately"}}`

// smsToDo starts a scheduler whose SMS go to the fake Twilio f and creates an smsNow To Do.
func smsToDo(t *testing.T, app *testapp.App, f *fakeTwilio) (*dispatch.Scheduler, *answerdesk.ToDo) {
	t.Helper()
	ch, _ := startTwilio(t, f, "")
	s := newScheduler(app)
	s.SMS = ch
	return s, app.CreateToDo(t, app.Alice, smsNow)
}

func reload(t *testing.T, app *testapp.App, id int64) *answerdesk.ToDo {
	t.Helper()
	td, err := app.ToDos.FindToDo(context.Background(), app.Caller(t, app.Alice), fmt.Sprint(id))
	if err != nil {
		t.Fatal(err)
	}
	return td
}

func attempts(t *testing.T, app *testapp.App, id int64) []answerdesk.AttemptResult {
	t.Helper()
	list, err := app.ToDos.ToDoDeliveries(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func tick(t *testing.T, s *dispatch.Scheduler) int {
	t.Helper()
	n, err := s.Tick(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSchedulerDeliversEmailOverSMTP(t *testing.T) {
	app := testapp.New(t)
	rec := &smtpRecorder{}
	s := newScheduler(app)
	s.Email = newSMTP(t, startSMTP(t, rec))
	td := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"email","contact":"pat@example.com","message_text":"Your appointment is confirmed for 3 PM.","from_email":"office@acme.example","sender_name":"Acme Office","subject":"Appointment confirmed","schedule":{"rule":"immediately"}}`)
	if n := tick(t, s); n != 1 {
		t.Fatalf("tick delivered %d", n)
	}
	msgs := rec.messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages at the SMTP server", len(msgs))
	}
	p := parseReceived(t, msgs[0].data)
	if p.from.Name != "Acme Office" || p.from.Address != "office@acme.example" || p.subj != "Appointment confirmed" ||
		!strings.Contains(p.body, "Your appointment is confirmed for 3 PM.") || len(p.to) != 1 || p.to[0].Address != "pat@example.com" ||
		msgs[0].from != "office@acme.example" || msgs[0].to[0] != "pat@example.com" {
		t.Fatalf("received %+v envelope %s -> %v", p, msgs[0].from, msgs[0].to)
	}
	got := reload(t, app, td.ID)
	if got.LastDelivery == nil || got.LastDelivery.Status != "sent" || got.LastDelivery.Channel != "smtp" || got.LastDelivery.Error != nil || got.IsSending {
		t.Fatalf("last_delivery %+v is_sending %v", got.LastDelivery, got.IsSending)
	}
	if got.Schedule.NextOccurrence != nil || got.Schedule.PreviousOccurrence == nil {
		t.Fatalf("schedule after the only occurrence: prev %v next %v", got.Schedule.PreviousOccurrence, got.Schedule.NextOccurrence)
	}
	if n := tick(t, s); n != 0 || len(rec.messages()) != 1 {
		t.Fatalf("a second tick sent again")
	}
}

func TestSchedulerDeliversSMSAndCallsOverTwilio(t *testing.T) {
	app := testapp.New(t)
	f := &fakeTwilio{status: 201, body: `{"sid":"SM0001"}`}
	ch, _ := startTwilio(t, f, "")
	s := newScheduler(app)
	s.SMS, s.Voice = ch, ch
	sms := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"sms","from":"+15550101001","contact":"+15555550123","message_text":"Technician arriving at 2","schedule":{"rule":"immediately"}}`)
	call := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","contact":"+15555550188","instructions":"Remind Sam about the 2 PM visit & bring keys","schedule":{"rule":"immediately"}}`)
	agent := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"Agent: call the building manager","schedule":{"rule":"immediately"}}`)
	if n := tick(t, s); n != 3 {
		t.Fatalf("delivered %d", n)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d Twilio requests, want 2 (the call without a number goes to the outbox)", len(reqs))
	}
	for _, r := range reqs {
		if r.user != "AC123" || r.pass != "tok3n" {
			t.Fatalf("basic auth %s:%s", r.user, r.pass)
		}
		switch {
		case strings.HasSuffix(r.path, "/Messages.json"):
			if r.form.Get("To") != "+15555550123" || r.form.Get("From") != "+15550101001" || r.form.Get("Body") != "Technician arriving at 2" {
				t.Fatalf("sms form %v", r.form)
			}
		case strings.HasSuffix(r.path, "/Calls.json"):
			if r.form.Get("To") != "+15555550188" || r.form.Get("From") != "+15550101001" ||
				r.form.Get("Twiml") != "<Response><Say>Remind Sam about the 2 PM visit &amp; bring keys</Say></Response>" {
				t.Fatalf("call form %v", r.form)
			}
		default:
			t.Fatalf("unexpected path %s", r.path)
		}
	}
	for id, channel := range map[int64]string{sms.ID: "twilio", call.ID: "twilio", agent.ID: "outbox"} {
		if ld := reload(t, app, id).LastDelivery; ld == nil || ld.Status != "sent" || ld.Channel != channel {
			t.Fatalf("to-do %d last_delivery %+v, want sent over %s", id, ld, channel)
		}
	}
}

func TestSchedulerRetriesTransientFailures(t *testing.T) {
	app := testapp.New(t)
	f := &fakeTwilio{status: 503, body: `{"code":20503,"message":"Service unavailable"}`}
	s, td := smsToDo(t, app, f)
	s.Backoff = []time.Duration{time.Minute, 10 * time.Minute}
	tick(t, s)
	got := reload(t, app, td.ID)
	if got.LastDelivery == nil || got.LastDelivery.Status != "failed" || got.LastDelivery.Error == nil || !strings.Contains(*got.LastDelivery.Error, "Service unavailable") {
		t.Fatalf("after a 503: %+v", got.LastDelivery)
	}
	// Not before the backoff (1 min ± 20%) has passed.
	app.Clock.Advance(40 * time.Second)
	if tick(t, s); len(f.requests()) != 1 {
		t.Fatalf("retried after 40 s: %d requests", len(f.requests()))
	}
	app.Clock.Advance(40 * time.Second)
	tick(t, s)
	if len(f.requests()) != 2 {
		t.Fatalf("not retried after 80 s: %d requests", len(f.requests()))
	}
	// The provider recovers on the last allowed retry.
	f.mu.Lock()
	f.status, f.body = 201, `{"sid":"SM42"}`
	f.mu.Unlock()
	app.Clock.Advance(13 * time.Minute)
	tick(t, s)
	list := attempts(t, app, td.ID)
	if len(list) != 3 || list[0].Status != "sent" || list[0].ProviderID != "SM42" || list[1].Status != "retry" || list[2].Status != "retry" {
		t.Fatalf("attempts %+v", list)
	}
	app.Clock.Advance(time.Hour)
	if tick(t, s); len(f.requests()) != 3 {
		t.Fatal("sent again after success")
	}
}

func TestSchedulerGivesUpOnPermanentFailures(t *testing.T) {
	app := testapp.New(t)
	f := &fakeTwilio{status: 400, body: `{"code":21211,"message":"Invalid 'To' Phone Number"}`}
	s, td := smsToDo(t, app, f)
	tick(t, s)
	app.Clock.Advance(24 * time.Hour)
	tick(t, s)
	list := attempts(t, app, td.ID)
	if len(f.requests()) != 1 || len(list) != 1 || list[0].Status != "failed" || !strings.Contains(list[0].Error, "Invalid 'To' Phone Number") {
		t.Fatalf("%d requests, attempts %+v", len(f.requests()), list)
	}
}

func TestSchedulerRecurringAndMissedOccurrences(t *testing.T) {
	app := testapp.New(t) // Friday 2026-11-20 10:00 New York
	s := newScheduler(app)
	td := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"Daily check-in","schedule":{"frequency":"daily","times":["11:00"]}}`)
	ny, _ := time.LoadLocation("America/New_York")
	at := func(d int) time.Time { return time.Date(2026, 11, 20+d, 11, 0, 0, 0, ny) }

	app.Clock.Set(at(0).Add(time.Second))
	tick(t, s)
	got := reload(t, app, td.ID)
	if !got.Schedule.PreviousOccurrence.Equal(at(0)) || !got.Schedule.NextOccurrence.Equal(at(1)) || got.LastDelivery.Status != "sent" {
		t.Fatalf("after day 0: prev %v next %v", got.Schedule.PreviousOccurrence, got.Schedule.NextOccurrence)
	}
	// Down for four days: only the latest missed occurrence (day 4) is sent; days 1-3 are skipped.
	app.Clock.Set(at(4).Add(3 * time.Hour))
	tick(t, s)
	list := attempts(t, app, td.ID)
	var sent, skipped []string
	for _, a := range list {
		day := a.Occurrence.ScheduledAt.In(ny).Format("01-02")
		switch a.Status {
		case "sent":
			sent = append(sent, day)
		case "skipped":
			skipped = append(skipped, day)
		}
	}
	if strings.Join(sent, ",") != "11-24,11-20" || strings.Join(skipped, ",") != "11-23,11-22,11-21" {
		t.Fatalf("sent %v skipped %v", sent, skipped)
	}
	got = reload(t, app, td.ID)
	if !got.Schedule.PreviousOccurrence.Equal(at(4)) || !got.Schedule.NextOccurrence.Equal(at(5)) || got.LastDelivery.Status != "sent" {
		t.Fatalf("after the outage: prev %v next %v last %+v", got.Schedule.PreviousOccurrence, got.Schedule.NextOccurrence, got.LastDelivery)
	}
}

// cancelAfterSend is a channel that cancels the scheduler's context right after the
// provider answered: a SIGTERM landing between the provider's answer and the record.
type cancelAfterSend struct {
	dispatch.Channel
	cancel context.CancelFunc
}

func (c cancelAfterSend) Send(ctx context.Context, o *answerdesk.Occurrence) (string, error) {
	id, err := c.Channel.Send(ctx, o)
	c.cancel()
	return id, err
}

// TestSchedulerCrashSafety stops a scheduler mid-delivery and starts a fresh one on the same
// database: an occurrence the provider answered is never sent again, one it had not
// answered is sent by the next scheduler, and one held by a dead process is taken over
// when its lease runs out.
func TestSchedulerCrashSafety(t *testing.T) {
	body := smsNow
	t.Run("answered_then_stopped", func(t *testing.T) {
		app := testapp.New(t)
		f := &fakeTwilio{status: 201, body: `{"sid":"SM1"}`}
		ch, _ := startTwilio(t, f, "")
		ctx, cancel := context.WithCancel(context.Background())
		s := newScheduler(app)
		s.SMS = cancelAfterSend{ch, cancel}
		td := app.CreateToDo(t, app.Alice, body)
		if _, err := s.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		fresh := newScheduler(app)
		fresh.SMS = ch
		app.Clock.Advance(time.Hour) // past any lease
		tick(t, fresh)
		if n := len(f.requests()); n != 1 {
			t.Fatalf("provider got %d requests, want exactly 1", n)
		}
		if ld := reload(t, app, td.ID).LastDelivery; ld.Status != "sent" {
			t.Fatalf("last_delivery %+v", ld)
		}
	})
	t.Run("cut_off_before_answer", func(t *testing.T) {
		app := testapp.New(t)
		var requests, answered atomic.Int32
		arrived := make(chan struct{})
		f := &fakeTwilio{status: 201, body: `{"sid":"SM2"}`}
		ch, srv := startTwilio(t, f, "")
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if requests.Add(1) == 1 {
				// The first request never gets an answer. Reading the body lets the server
				// notice when the client hangs up.
				close(arrived)
				_, _ = io.Copy(io.Discard, r.Body)
				<-r.Context().Done()
				return
			}
			f.ServeHTTP(w, r)
			answered.Add(1)
		})
		td := app.CreateToDo(t, app.Alice, body)
		ctx, cancel := context.WithCancel(context.Background())
		s := newScheduler(app)
		s.SMS = ch
		done := make(chan struct{})
		go func() { defer close(done); _, _ = s.Tick(ctx) }()
		// Cut off once the provider has the request, however slow the machine: cut off
		// earlier, the request would be the fresh scheduler's, and never answered.
		select {
		case <-arrived:
		case <-time.After(30 * time.Second):
			t.Fatal("the provider never got the first request")
		}
		cancel()
		<-done
		if got := reload(t, app, td.ID); got.LastDelivery != nil || got.IsSending {
			t.Fatalf("after the cut-off: last_delivery %+v is_sending %v", got.LastDelivery, got.IsSending)
		}
		fresh := newScheduler(app)
		fresh.SMS = ch
		tick(t, fresh) // no clock move: a released occurrence is due at once
		if answered.Load() != 1 {
			t.Fatalf("provider answered %d times, want 1", answered.Load())
		}
		if ld := reload(t, app, td.ID).LastDelivery; ld == nil || ld.Status != "sent" {
			t.Fatalf("last_delivery %+v", ld)
		}
	})
	t.Run("lease_taken_over_after_a_crash", func(t *testing.T) {
		app := testapp.New(t)
		td := app.CreateToDo(t, app.Alice, body)
		s := newScheduler(app)
		s.Lease = time.Minute
		// A process claims the occurrence and dies before sending.
		if _, err := app.ToDos.MaterializeDue(context.Background(), app.Clock.Now(), 10, func(string) string { return "outbox" }); err != nil {
			t.Fatal(err)
		}
		if occ, err := app.ToDos.ClaimOccurrences(context.Background(), app.Clock.Now(), time.Minute, 10); err != nil || len(occ) != 1 {
			t.Fatalf("claim: %v %v", occ, err)
		}
		if !reload(t, app, td.ID).IsSending {
			t.Fatal("is_sending not set while leased")
		}
		if n := tick(t, s); n != 0 {
			t.Fatal("took over a live lease")
		}
		app.Clock.Advance(61 * time.Second)
		if n := tick(t, s); n != 1 {
			t.Fatalf("did not take over the expired lease: %d", n)
		}
		if ld := reload(t, app, td.ID).LastDelivery; ld == nil || ld.Status != "sent" {
			t.Fatalf("last_delivery %+v", ld)
		}
	})
}

// countingChannel counts sends per occurrence key.
type countingChannel struct {
	mu    sync.Mutex
	count map[string]int
}

func (c *countingChannel) Name() string { return "outbox" }
func (c *countingChannel) Send(_ context.Context, o *answerdesk.Occurrence) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count[o.Key]++
	return "x", nil
}

// TestSchedulersNeverShareAnOccurrence runs two schedulers on one database at once.
func TestSchedulersNeverShareAnOccurrence(t *testing.T) {
	app := testapp.New(t)
	for i := range 60 {
		app.CreateToDo(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","delivery_type":"call","name":"c%d","instructions":"x","schedule":{"rule":"immediately"}}`, i))
	}
	ch := &countingChannel{count: map[string]int{}}
	var wg sync.WaitGroup
	for range 2 {
		s := newScheduler(app)
		s.Outbox, s.Batch = ch, 7
		wg.Go(func() {
			for range 20 {
				if _, err := s.Tick(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if len(ch.count) != 60 {
		t.Fatalf("%d occurrences sent, want 60", len(ch.count))
	}
	for k, n := range ch.count {
		if n != 1 {
			t.Fatalf("%s sent %d times", k, n)
		}
	}
}

func TestSchedulerWake(t *testing.T) {
	app := testapp.New(t)
	ch := &countingChannel{count: map[string]int{}}
	s := newScheduler(app)
	s.Outbox, s.Poll = ch, time.Hour // only a wake-up can make it look again
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond) // the first, empty, look
	app.ToDos.OnCreate = s.Wake
	app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately"}}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		ch.mu.Lock()
		n := len(ch.count)
		ch.mu.Unlock()
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the wake-up did not deliver the new To Do")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
