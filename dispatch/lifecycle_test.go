package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// sendLog records every send a scheduler makes: the To Do and the occurrence's scheduled time.
type sendLog struct {
	mu    sync.Mutex
	sends []answerdesk.Occurrence
}

func (l *sendLog) Name() string { return "outbox" }
func (l *sendLog) Send(_ context.Context, o *answerdesk.Occurrence) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sends = append(l.sends, *o)
	return "sent-" + o.Key, nil
}

func (l *sendLog) all() []answerdesk.Occurrence {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]answerdesk.Occurrence(nil), l.sends...)
}

// toDoCall calls the customer API as Alice and decodes {"data": To Do}, failing unless
// the status is want.
func toDoCall(t *testing.T, app *testapp.App, method, path string, body any, want int) answerdesk.ToDo {
	t.Helper()
	r := app.Do(t, method, path, app.Alice.Token, body)
	if r.Status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, r.Status, r.Body, want)
	}
	var got struct{ Data answerdesk.ToDo }
	if want == 200 {
		r.JSON(t, &got)
	}
	return got.Data
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestToDoLifecycleWeekly walks a whole lifecycle: a weekly To Do paused across an
// occurrence sends nothing, resumed it sends the next occurrence once, a changed time is
// used, and once cancelled nothing more is ever sent. The clock is injected; the scheduler
// is the real one over the real store.
func TestToDoLifecycleWeekly(t *testing.T) {
	app := testapp.New(t) // Friday 2026-11-20 15:00 UTC, 10:00 in New York
	log := &sendLog{}
	s := newScheduler(app)
	s.Outbox = log
	sent := func() int { return len(log.all()) }

	td := toDoCall(t, app, "POST", "/api/v2/to-dos", `{"account_number":"1001","delivery_type":"call","name":"Weekly check-in",
		"contact":"+15555550123","instructions":"Weekly check-in call","schedule":{"frequency":"weekly","days":["monday"],"times":["09:00"]}}`, 200)
	path := fmt.Sprintf("/api/v2/to-dos/%d", td.ID)
	if td.State != answerdesk.ToDoActive || !td.Schedule.NextOccurrence.Equal(utc("2026-11-23T14:00:00Z")) || len(td.Schedule.Upcoming) != 5 ||
		!td.Schedule.Upcoming[4].Equal(utc("2026-12-21T14:00:00Z")) {
		t.Fatalf("created: state %s next %v upcoming %v", td.State, td.Schedule.NextOccurrence, td.Schedule.Upcoming)
	}

	t.Run("paused_across_an_occurrence_sends_nothing", func(t *testing.T) {
		got := toDoCall(t, app, "PATCH", path+"/pause", nil, 200)
		if got.State != answerdesk.ToDoPaused || got.Schedule.NextOccurrence != nil || len(got.Schedule.Upcoming) != 0 {
			t.Fatalf("paused: state %s next %v upcoming %v", got.State, got.Schedule.NextOccurrence, got.Schedule.Upcoming)
		}
		app.Clock.Set(utc("2026-11-23T14:05:00Z")) // Monday's 09:00 has passed while paused
		tick(t, s)
		if n := sent(); n != 0 {
			t.Fatalf("%d sends while paused", n)
		}
	})
	t.Run("resumed_sends_the_next_occurrence_once", func(t *testing.T) {
		got := toDoCall(t, app, "PATCH", path+"/resume", nil, 200)
		if got.State != answerdesk.ToDoActive || !got.Schedule.NextOccurrence.Equal(utc("2026-11-30T14:00:00Z")) {
			t.Fatalf("resumed: state %s next %v (the missed Monday must not be sent)", got.State, got.Schedule.NextOccurrence)
		}
		tick(t, s)
		if n := sent(); n != 0 {
			t.Fatalf("the occurrence missed while paused was sent (%d sends)", n)
		}
		app.Clock.Set(utc("2026-11-30T14:00:00Z"))
		tick(t, s)
		tick(t, s)
		if l := log.all(); len(l) != 1 || !l[0].ScheduledAt.Equal(utc("2026-11-30T14:00:00Z")) {
			t.Fatalf("sends after resume: %+v", l)
		}
	})
	t.Run("changed_time_is_used", func(t *testing.T) {
		// Monday 09:00 in New York has just been sent; 10:30 is still ahead today.
		got := toDoCall(t, app, "PATCH", path, `{"schedule":{"frequency":"weekly","days":["monday"],"times":["10:30"]}}`, 200)
		if !got.Schedule.NextOccurrence.Equal(utc("2026-11-30T15:30:00Z")) || !got.Schedule.Upcoming[1].Equal(utc("2026-12-07T15:30:00Z")) ||
			got.Name != "Weekly check-in" || *got.Instructions != "Weekly check-in call" || got.State != answerdesk.ToDoActive {
			t.Fatalf("changed: next %v upcoming %v name %q", got.Schedule.NextOccurrence, got.Schedule.Upcoming, got.Name)
		}
		app.Clock.Set(utc("2026-11-30T15:29:00Z"))
		tick(t, s)
		if n := sent(); n != 1 {
			t.Fatalf("%d sends before the new time", n)
		}
		app.Clock.Set(utc("2026-11-30T15:30:00Z"))
		tick(t, s)
		app.Clock.Set(utc("2026-12-07T14:00:00Z")) // next Monday at the old time: nothing due
		tick(t, s)
		if l := log.all(); len(l) != 2 || !l[1].ScheduledAt.Equal(utc("2026-11-30T15:30:00Z")) {
			t.Fatalf("sends after the change: %+v", l)
		}
	})
	t.Run("cancelled_sends_nothing_more_ever", func(t *testing.T) {
		got := toDoCall(t, app, "DELETE", path, nil, 200)
		if got.State != answerdesk.ToDoCancelled || got.Schedule.NextOccurrence != nil {
			t.Fatalf("cancelled: state %s next %v", got.State, got.Schedule.NextOccurrence)
		}
		for range 10 { // ten more Mondays
			app.Clock.Advance(7 * 24 * time.Hour)
			tick(t, s)
		}
		if n := sent(); n != 2 {
			t.Fatalf("%d sends after cancel, want the 2 before", n)
		}
		again := toDoCall(t, app, "DELETE", path, nil, 200) // idempotent
		if again.State != answerdesk.ToDoCancelled {
			t.Fatalf("cancel again: %s", again.State)
		}
		if r := app.Do(t, "PATCH", path+"/resume", app.Alice.Token, nil); r.Status != 422 || !json.Valid(r.Body) {
			t.Fatalf("resume a cancelled To Do: %d %s", r.Status, r.Body)
		}
	})
	t.Run("history_stays_readable", func(t *testing.T) {
		r := app.Do(t, "GET", path+"/deliveries", app.Alice.Token, nil)
		var list struct {
			Data []answerdesk.ToDoDelivery
			Meta answerdesk.PageMeta
		}
		r.JSON(t, &list)
		if r.Status != 200 || list.Meta.Total != 2 || list.Data[0].Status != "sent" || !list.Data[0].ScheduledFor.Equal(utc("2026-11-30T15:30:00Z")) ||
			len(list.Data[0].Attempts) != 1 || list.Data[0].Attempts[0].Status != "sent" || *list.Data[0].Channel != "outbox" {
			t.Fatalf("deliveries %d %s", r.Status, r.Body)
		}
	})
}

// TestToDoCompletes: the scheduler keeps state true, a one-off is completed once its
// occurrence settles and a recurrence with a count after its last.
func TestToDoCompletes(t *testing.T) {
	app := testapp.New(t)
	s := newScheduler(app)
	s.Outbox = &sendLog{}
	for _, tc := range []struct {
		name, schedule string
		steps          int // ticks, each a day later, until the last occurrence is sent
	}{
		{"one_off_after_its_occurrence", `{"rule":"immediately"}`, 1},
		{"recurrence_after_its_count", `{"frequency":"daily","times":["11:00"],"count":3}`, 3},
		{"recurrence_after_its_until", `{"frequency":"daily","times":["11:00"],"until":"2026-11-22"}`, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app.Clock.Set(testapp.Start)
			td := toDoCall(t, app, "POST", "/api/v2/to-dos", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":`+tc.schedule+`}`, 200)
			for i := range tc.steps {
				if got := reload(t, app, td.ID); got.State != answerdesk.ToDoActive {
					t.Fatalf("step %d: state %s before the last occurrence", i, got.State)
				}
				app.Clock.Advance(24 * time.Hour)
				tick(t, s)
			}
			got := reload(t, app, td.ID)
			if got.State != answerdesk.ToDoCompleted || got.Schedule.NextOccurrence != nil {
				t.Fatalf("state %s next %v", got.State, got.Schedule.NextOccurrence)
			}
			if a := attempts(t, app, td.ID); len(a) != tc.steps {
				t.Fatalf("%d attempts, want one per occurrence (%d)", len(a), tc.steps)
			}
			if r := app.Do(t, "PATCH", fmt.Sprintf("/api/v2/to-dos/%d/pause", td.ID), app.Alice.Token, nil); r.Status != 422 {
				t.Fatalf("pause a completed To Do: %d %s", r.Status, r.Body)
			}
		})
	}
}

// TestToDoResumedAfterItsEnd: a one-off paused across its only occurrence has nothing left
// when resumed, so it becomes completed and nothing is sent.
func TestToDoResumedAfterItsEnd(t *testing.T) {
	app := testapp.New(t) // 10:00 in New York
	log := &sendLog{}
	s := newScheduler(app)
	s.Outbox = log
	td := toDoCall(t, app, "POST", "/api/v2/to-dos", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"today","times":["10:30"]}}`, 200)
	path := fmt.Sprintf("/api/v2/to-dos/%d", td.ID)
	toDoCall(t, app, "PATCH", path+"/pause", nil, 200)
	app.Clock.Advance(time.Hour)
	tick(t, s)
	got := toDoCall(t, app, "PATCH", path+"/resume", nil, 200)
	tick(t, s)
	if got.State != answerdesk.ToDoCompleted || got.Schedule.NextOccurrence != nil || len(log.all()) != 0 {
		t.Fatalf("resumed after its only time: state %s next %v, %d sends", got.State, got.Schedule.NextOccurrence, len(log.all()))
	}
	// A completed To Do given a new schedule runs again.
	got = toDoCall(t, app, "PATCH", path, `{"schedule":{"rule":"immediately"}}`, 200)
	tick(t, s)
	if got.State != answerdesk.ToDoActive || len(log.all()) != 1 || reload(t, app, td.ID).State != answerdesk.ToDoCompleted {
		t.Fatalf("rescheduled: state %s, %d sends, then %s", got.State, len(log.all()), reload(t, app, td.ID).State)
	}
}

// TestToDoCancelStopsAClaimedOccurrence: a tick claims a whole batch at once but sends it
// with a few workers, so a claimed occurrence can wait for a worker. A cancel (or pause)
// that commits while it waits must keep it from starting (the To Dos docs page: "no later one
// starts"); the one already at the provider finishes.
func TestToDoCancelStopsAClaimedOccurrence(t *testing.T) {
	for _, action := range []struct{ method, suffix, state, reason string }{
		{"DELETE", "", answerdesk.ToDoCancelled, "not sent: the To Do was cancelled"},
		{"PATCH", "/pause", answerdesk.ToDoPaused, "not sent: the To Do was paused"},
	} {
		t.Run(action.state, func(t *testing.T) {
			app := testapp.New(t)
			first := toDoCall(t, app, "POST", "/api/v2/to-dos", `{"account_number":"1001","delivery_type":"call","instructions":"first","schedule":{"rule":"immediately"}}`, 200)
			second := toDoCall(t, app, "POST", "/api/v2/to-dos", `{"account_number":"1001","delivery_type":"call","instructions":"second","schedule":{"rule":"immediately"}}`, 200)

			atProvider, release := make(chan struct{}), make(chan struct{})
			var sent []int64
			var mu sync.Mutex
			s := newScheduler(app)
			s.Workers = 1 // the second occurrence waits, claimed, while the first is sent
			s.Outbox = &funcChannel{send: func(o *answerdesk.Occurrence) error {
				mu.Lock()
				sent = append(sent, o.ToDo.ID)
				mu.Unlock()
				if o.ToDo.ID == first.ID {
					close(atProvider)
					<-release
				}
				return nil
			}}
			done := make(chan int)
			go func() {
				n, err := s.Tick(context.Background())
				if err != nil {
					t.Error(err)
				}
				done <- n
			}()
			<-atProvider
			got := toDoCall(t, app, action.method, fmt.Sprintf("/api/v2/to-dos/%d%s", second.ID, action.suffix), nil, 200)
			if got.State != action.state {
				t.Fatalf("state %s, want %s", got.State, action.state)
			}
			close(release)
			if n := <-done; n != 2 {
				t.Fatalf("the tick claimed %d occurrences, want both", n)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(sent) != 1 || sent[0] != first.ID {
				t.Fatalf("sent to-dos %v, want only the first (%d): the second was %s while it waited", sent, first.ID, action.state)
			}
			r := app.Do(t, "GET", fmt.Sprintf("/api/v2/to-dos/%d/deliveries", second.ID), app.Alice.Token, nil)
			var deliveries struct {
				Data []struct {
					Status   string
					Error    *string
					Attempts []json.RawMessage
				}
			}
			r.JSON(t, &deliveries)
			if len(deliveries.Data) != 1 || deliveries.Data[0].Status != "skipped" || deliveries.Data[0].Error == nil ||
				*deliveries.Data[0].Error != action.reason || len(deliveries.Data[0].Attempts) != 0 {
				t.Fatalf("deliveries of the second: %s", r.Body)
			}
			if td := toDoCall(t, app, "GET", fmt.Sprintf("/api/v2/to-dos/%d", second.ID), nil, 200); td.IsSending {
				t.Fatal("is_sending still true after the skip")
			}
		})
	}
}

// TestWithdrawnSenderIsNotUsed: a To Do's sender is checked when it is made, but an admin
// may withdraw it later (remove the SMS number or the sending domain, blacklist the
// address). Its occurrences then fail, saying why, instead of sending from it; once the
// sender is back they are sent again.
func TestWithdrawnSenderIsNotUsed(t *testing.T) {
	for _, tc := range []struct {
		name, toDo, withdraw, restore, method, reason string
	}{
		{"sms_number_removed", `{"account_number":"1001","delivery_type":"sms","from":"+15550101001","contact":"+15555550123","message_text":"x","schedule":{"frequency":"daily","times":["11:00"]}}`,
			"DELETE /api/v2/accounts/1001/sms-numbers/+15550101001", `POST /api/v2/accounts/1001/sms-numbers {"number":"+15550101001"}`, "",
			"not sent: 5550101001 is no longer an SMS-enabled number of the account"},
		{"sending_domain_removed", `{"account_number":"1001","delivery_type":"email","contact":"pat@example.com","from_email":"office@acme.example","message_text":"x","schedule":{"frequency":"daily","times":["11:00"]}}`,
			"DELETE /api/v2/accounts/1001/sending-domains/acme.example", `POST /api/v2/accounts/1001/sending-domains {"domain":"acme.example"}`, "",
			"not sent: the domain of office@acme.example is no longer an authenticated sending domain of the account"},
		{"address_blacklisted", `{"account_number":"1001","delivery_type":"email","contact":"pat@example.com","from_email":"office@acme.example","message_text":"x","schedule":{"frequency":"daily","times":["11:00"]}}`,
			`POST /api/v2/accounts/1001/email-blacklist {"email":"office@acme.example"}`, "DELETE /api/v2/accounts/1001/email-blacklist/office@acme.example", "",
			"not sent: office@acme.example is on the account's email blacklist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := testapp.New(t) // Friday 10:00 in New York
			log := &sendLog{}
			s := newScheduler(app)
			s.Outbox = log
			admin := func(call string) {
				t.Helper()
				method, rest, _ := strings.Cut(call, " ")
				path, body, _ := strings.Cut(rest, " ")
				var b any
				if body != "" {
					b = body
				}
				if r := app.Do(t, method, path, app.Admin.Token, b); r.Status != 200 {
					t.Fatalf("%s: %d %s", call, r.Status, r.Body)
				}
			}
			td := toDoCall(t, app, "POST", "/api/v2/to-dos", tc.toDo, 200)
			admin(tc.withdraw)
			app.Clock.Set(utc("2026-11-20T16:00:00Z")) // 11:00 in New York
			tick(t, s)
			if n := len(log.all()); n != 0 {
				t.Fatalf("%d sends from a withdrawn sender", n)
			}
			r := app.Do(t, "GET", fmt.Sprintf("/api/v2/to-dos/%d/deliveries", td.ID), app.Alice.Token, nil)
			var d struct {
				Data []struct {
					Status string
					Error  *string
				}
			}
			r.JSON(t, &d)
			if len(d.Data) != 1 || d.Data[0].Status != "failed" || d.Data[0].Error == nil || *d.Data[0].Error != tc.reason {
				t.Fatalf("deliveries: %s", r.Body)
			}
			if got := toDoCall(t, app, "GET", fmt.Sprintf("/api/v2/to-dos/%d", td.ID), nil, 200); got.State != answerdesk.ToDoActive || got.IsSending {
				t.Fatalf("state %s, is_sending %v: a refused occurrence leaves the To Do active and idle", got.State, got.IsSending)
			}
			admin(tc.restore)
			app.Clock.Set(utc("2026-11-21T16:00:00Z")) // the next day's 11:00
			tick(t, s)
			if n := len(log.all()); n != 1 {
				t.Fatalf("%d sends once the sender is back, want 1", n)
			}
		})
	}
}

// TestStartRenewsAHalfSpentLease: an occurrence that waited in its batch for a worker
// until half its lease was gone gets the lease renewed when it starts, so another
// scheduler cannot claim it again while it is being sent.
func TestStartRenewsAHalfSpentLease(t *testing.T) {
	app := testapp.New(t)
	toDoCall(t, app, "POST", "/api/v2/to-dos", `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately"}}`, 200)
	ctx := context.Background()
	q := app.ToDos
	if _, err := q.MaterializeDue(ctx, app.Clock.Now(), 10, func(string) string { return "outbox" }); err != nil {
		t.Fatal(err)
	}
	occs, err := q.ClaimOccurrences(ctx, app.Clock.Now(), 2*time.Minute, 10)
	if err != nil || len(occs) != 1 {
		t.Fatalf("claimed %d: %v", len(occs), err)
	}
	app.Clock.Advance(90 * time.Second) // waited for a worker
	if ok, err := q.StartOccurrence(ctx, occs[0], app.Clock.Now(), 2*time.Minute); err != nil || !ok {
		t.Fatalf("start: %v %v", ok, err)
	}
	app.Clock.Advance(time.Minute) // past the first lease, within the renewed one
	if again, err := q.ClaimOccurrences(ctx, app.Clock.Now(), 2*time.Minute, 10); err != nil || len(again) != 0 {
		t.Fatalf("claimed again while being sent: %d %v", len(again), err)
	}
}
