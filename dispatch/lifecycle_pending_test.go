package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// TestToDoChangeStopsWaitingOccurrences: an occurrence that is waiting when a pause, a
// cancel or a new schedule commits (materialised but not yet claimed, or waiting for a
// retry) never starts, and the deliveries say why.
func TestToDoChangeStopsWaitingOccurrences(t *testing.T) {
	ctx := context.Background()
	outbox := func(string) string { return "outbox" }
	for _, tc := range []struct {
		name, method, suffix, body, reason string
	}{
		{"pause", "PATCH", "/pause", "", "not sent: the To Do was paused"},
		{"cancel", "DELETE", "", "", "not sent: the To Do was cancelled"},
		{"new_schedule", "PATCH", "", `{"schedule":{"frequency":"daily","times":["23:00"]}}`, "not sent: the To Do's schedule was changed"},
	} {
		t.Run(tc.name+"_drops_a_materialised_occurrence", func(t *testing.T) {
			app := testapp.New(t)
			log := &sendLog{}
			s := newScheduler(app)
			s.Outbox = log
			td := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","times":["10:30"]}}`)
			app.Clock.Advance(31 * time.Minute) // 10:31 in New York: due
			if n, err := app.ToDos.MaterializeDue(ctx, app.Clock.Now(), 10, outbox); err != nil || n != 1 {
				t.Fatalf("materialise: %d %v", n, err)
			}
			var body any
			if tc.body != "" {
				body = tc.body
			}
			if r := app.Do(t, tc.method, fmt.Sprintf("/api/v2/to-dos/%d%s", td.ID, tc.suffix), app.Alice.Token, body); r.Status != 200 {
				t.Fatalf("%s: %d %s", tc.name, r.Status, r.Body)
			}
			tick(t, s)
			if l := log.all(); len(l) != 0 {
				t.Fatalf("the waiting occurrence was sent after %s: %+v", tc.name, l)
			}
			list, _, err := app.ToDos.FindToDoDeliveries(ctx, app.Caller(t, app.Alice), fmt.Sprint(td.ID), answerdesk.Paging{Page: 1, PageSize: 10})
			if err != nil || len(list) != 1 || list[0].Status != "skipped" || list[0].Error == nil || *list[0].Error != tc.reason || list[0].Channel != nil {
				t.Fatalf("deliveries %+v %v", list, err)
			}
		})
	}
	t.Run("pause_stops_a_retry_and_resume_does_not_send_it", func(t *testing.T) {
		app := testapp.New(t)
		fails := true
		s := newScheduler(app)
		s.Backoff = []time.Duration{10 * time.Minute}
		sent := 0
		s.Outbox = &funcChannel{send: func(*answerdesk.Occurrence) error {
			if fails {
				return errors.New("provider busy")
			}
			sent++
			return nil
		}}
		td := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","times":["10:30"]}}`)
		app.Clock.Advance(31 * time.Minute)
		tick(t, s) // fails; a retry waits 10 minutes
		fails = false
		path := fmt.Sprintf("/api/v2/to-dos/%d", td.ID)
		toDoCall(t, app, "PATCH", path+"/pause", nil, 200)
		app.Clock.Advance(15 * time.Minute)
		tick(t, s)
		got := toDoCall(t, app, "PATCH", path+"/resume", nil, 200)
		tick(t, s)
		if sent != 0 || !got.Schedule.NextOccurrence.Equal(time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)) {
			t.Fatalf("sent %d, next %v", sent, got.Schedule.NextOccurrence)
		}
		app.Clock.Set(time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC))
		tick(t, s)
		if sent != 1 {
			t.Fatalf("sent %d after resume, want the next day's occurrence once", sent)
		}
	})
}
