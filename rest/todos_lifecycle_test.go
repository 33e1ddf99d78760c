package rest_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// fieldErrors decodes a 422 and returns its errors by field.
func fieldErrors(t *testing.T, r *testapp.Response) map[string]string {
	t.Helper()
	var e struct {
		Code   string
		Errors []answerdesk.FieldError
	}
	r.JSON(t, &e)
	out := map[string]string{}
	for _, f := range e.Errors {
		out[f.Field] = f.Message
	}
	return out
}

func TestUpdateToDo(t *testing.T) {
	app := testapp.New(t) // Friday 2026-11-20 10:00 in New York
	sms := createToDo(t, app, app.Alice.Token, `{"account_number":"1001","delivery_type":"sms","from":"+15550101001","contact":"+15555550123",
		"message_text":"Weekly reminder","name":"Reminder","schedule":{"frequency":"weekly","days":["monday"],"times":["09:00"]}}`)
	path := fmt.Sprintf("/api/v2/to-dos/%d", sms.ID)

	t.Run("changes_only_the_named_fields", func(t *testing.T) {
		r := app.Do(t, "PATCH", path, app.Alice.Token, `{"contact":"(555) 555-0199","message_text":"New text"}`)
		var got struct{ Data answerdesk.ToDo }
		r.JSON(t, &got)
		td := got.Data
		if r.Status != 200 || *td.Contact != "+15555550199" || *td.MessageText != "New text" || td.Name != "Reminder" || *td.From != "5550101001" ||
			td.Schedule.Rule["rrule"] != sms.Schedule.Rule["rrule"] || !td.Schedule.NextOccurrence.Equal(sms.Schedule.NextOccurrence.Time) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("new_schedule_replaces_the_old_one", func(t *testing.T) {
		r := app.Do(t, "PATCH", path, app.Alice.Token, `{"schedule":{"frequency":"daily","times":["11:00"],"count":2,"skip_dates":["2026-11-21"]}}`)
		var got struct{ Data answerdesk.ToDo }
		r.JSON(t, &got)
		up := got.Data.Schedule.Upcoming
		// Today 11:00 (16:00Z), the 21st skipped but counted, so the 22nd is the second and last.
		if r.Status != 200 || len(up) != 1 || up[0].Format("2006-01-02T15:04Z") != "2026-11-20T16:00Z" {
			t.Fatalf("%d upcoming %v: %s", r.Status, up, r.Body)
		}
	})
	for _, tc := range []struct {
		name, body string
		status     int
		fields     []string
	}{
		{"account_number_cannot_be_named", `{"account_number":"1001"}`, 422, []string{"account_number"}},
		{"delivery_type_cannot_be_named", `{"delivery_type":"email","message_text":"x"}`, 422, []string{"delivery_type"}},
		{"required_field_cleared", `{"message_text":null}`, 422, []string{"message_text"}},
		{"checked_against_the_account", `{"from":"+15550101002"}`, 422, []string{"from"}},
		{"schedule_cannot_be_removed", `{"schedule":null}`, 422, []string{"schedule"}},
		{"until_and_count", `{"schedule":{"frequency":"daily","times":["09:00"],"until":"2026-12-31","count":3}}`, 422, []string{"schedule.count"}},
		{"until_in_the_past", `{"schedule":{"frequency":"daily","times":["09:00"],"until":"2026-11-19"}}`, 422, []string{"schedule.until"}},
		{"until_too_far_away", `{"schedule":{"frequency":"daily","times":["09:00"],"until":"9999-12-31"}}`, 422, []string{"schedule.until"}},
		{"until_a_century_away", `{"schedule":{"frequency":"daily","times":["09:00"],"until":"2126-11-21"}}`, 422, []string{"schedule.until"}},
		{"no_occurrence_left", `{"schedule":{"frequency":"weekly","days":["monday"],"times":["09:00"],"until":"2026-11-22"}}`, 422, []string{"schedule"}},
		{"bounds_only_for_recurring", `{"schedule":{"rule":"immediately","skip_dates":["2026-12-25"]}}`, 422, []string{"schedule.skip_dates"}},
		{"not_an_object", `[1]`, 400, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := app.Do(t, "PATCH", path, app.Alice.Token, tc.body)
			if r.Status != tc.status {
				t.Fatalf("%d %s, want %d", r.Status, r.Body, tc.status)
			}
			errs := fieldErrors(t, r)
			for _, f := range tc.fields {
				if errs[f] == "" {
					t.Errorf("no error on %s: %s", f, r.Body)
				}
			}
		})
	}
}

func TestToDoLifecycleRoutes(t *testing.T) {
	app := testapp.New(t)
	td := createToDo(t, app, app.Alice.Token, `{"account_number":"1001","delivery_type":"call","instructions":"Check in","schedule":{"frequency":"daily","times":["09:00"]}}`)
	bobs := createToDo(t, app, app.Bob.Token, `{"account_number":"1002","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","times":["09:00"]}}`)
	path := fmt.Sprintf("/api/v2/to-dos/%d", td.ID)
	step := func(method, suffix string, wantStatus int, wantState string) {
		t.Helper()
		r := app.Do(t, method, path+suffix, app.Alice.Token, nil)
		var got struct{ Data answerdesk.ToDo }
		if r.Status == 200 {
			r.JSON(t, &got)
		}
		if r.Status != wantStatus || (wantStatus == 200 && got.Data.State != wantState) {
			t.Fatalf("%s %s: %d %s, want %d %s", method, suffix, r.Status, r.Body, wantStatus, wantState)
		}
		if wantStatus == 200 && (got.Data.State != "active") != (got.Data.Schedule.NextOccurrence == nil) {
			t.Fatalf("%s %s: state %s with next_occurrence %v", method, suffix, got.Data.State, got.Data.Schedule.NextOccurrence)
		}
	}
	t.Run("pause_and_resume_are_idempotent", func(t *testing.T) {
		step("PATCH", "/pause", 200, "paused")
		step("PATCH", "/pause", 200, "paused")
		step("PATCH", "/resume", 200, "active")
		step("PATCH", "/resume", 200, "active")
	})
	t.Run("state_filter", func(t *testing.T) {
		step("PATCH", "/pause", 200, "paused")
		var list toDoList
		r := app.Do(t, "GET", "/api/v2/to-dos?state=paused", app.Alice.Token, nil)
		r.JSON(t, &list)
		if r.Status != 200 || list.Meta.Total != 1 || list.Data[0].ID != td.ID {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		r = app.Do(t, "GET", "/api/v2/to-dos?state=active", app.Alice.Token, nil)
		r.JSON(t, &list)
		if list.Meta.Total != 0 {
			t.Fatalf("active: %s", r.Body)
		}
		if r := app.Do(t, "GET", "/api/v2/to-dos?state=done", app.Alice.Token, nil); r.Status != 422 || fieldErrors(t, r)["state"] == "" {
			t.Fatalf("unknown state: %d %s", r.Status, r.Body)
		}
	})
	t.Run("cancel_keeps_it_readable", func(t *testing.T) {
		step("DELETE", "", 200, "cancelled")
		step("DELETE", "", 200, "cancelled")
		step("GET", "", 200, "cancelled")
		for _, suffix := range []string{"/pause", "/resume"} {
			r := app.Do(t, "PATCH", path+suffix, app.Alice.Token, nil)
			if r.Status != 422 || !strings.Contains(fieldErrors(t, r)["state"], "cancelled") {
				t.Fatalf("%s of a cancelled To Do: %d %s", suffix, r.Status, r.Body)
			}
		}
		if r := app.Do(t, "PATCH", path, app.Alice.Token, `{"name":"x"}`); r.Status != 422 || fieldErrors(t, r)["state"] == "" {
			t.Fatalf("update of a cancelled To Do: %d %s", r.Status, r.Body)
		}
		r := app.Do(t, "GET", path+"/deliveries", app.Alice.Token, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"data":[]`) || !strings.Contains(string(r.Body), `"total":0`) {
			t.Fatalf("deliveries: %d %s", r.Status, r.Body)
		}
	})
	t.Run("another_accounts_to_do_is_not_found", func(t *testing.T) {
		other := fmt.Sprintf("/api/v2/to-dos/%d", bobs.ID)
		for _, c := range [][2]string{{"PATCH", other + "/pause"}, {"PATCH", other + "/resume"}, {"DELETE", other}, {"PATCH", other}, {"GET", other + "/deliveries"}} {
			if r := app.Do(t, c[0], c[1], app.Alice.Token, `{"name":"x"}`); r.Status != 404 {
				t.Errorf("%s %s: %d %s", c[0], c[1], r.Status, r.Body)
			}
		}
		if got := getToDoState(t, app, app.Bob.Token, bobs.ID); got != "active" {
			t.Fatalf("bob's To Do changed: %s", got)
		}
	})
	t.Run("deliveries_paging_checked", func(t *testing.T) {
		if r := app.Do(t, "GET", path+"/deliveries?page_size=101", app.Alice.Token, nil); r.Status != 422 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("no_token", func(t *testing.T) {
		if r := app.Do(t, "DELETE", path, "", nil); r.Status != 401 {
			t.Fatalf("%d", r.Status)
		}
	})
}

func getToDoState(t *testing.T, app *testapp.App, token string, id int64) string {
	t.Helper()
	var got struct{ Data answerdesk.ToDo }
	app.Do(t, "GET", fmt.Sprintf("/api/v2/to-dos/%d", id), token, nil).JSON(t, &got)
	return got.Data.State
}

// TestUpdateToDoConcurrently: two partial updates of one To Do at the same moment, each
// naming another field, must both land; neither may write back the other's stale value.
func TestUpdateToDoConcurrently(t *testing.T) {
	app := testapp.New(t)
	td := createToDo(t, app, app.Alice.Token, `{"account_number":"1001","delivery_type":"call","instructions":"start","name":"start",
		"schedule":{"frequency":"weekly","days":["monday"],"times":["09:00"]}}`)
	path := fmt.Sprintf("/api/v2/to-dos/%d", td.ID)
	for i := range 20 {
		var wg sync.WaitGroup
		for _, body := range []string{fmt.Sprintf(`{"name":"name-%d"}`, i), fmt.Sprintf(`{"instructions":"instructions-%d"}`, i)} {
			wg.Go(func() {
				if r := app.Do(t, "PATCH", path, app.Alice.Token, body); r.Status != 200 {
					t.Errorf("PATCH %s: %d %s", body, r.Status, r.Body)
				}
			})
		}
		wg.Wait()
		var got struct{ Data answerdesk.ToDo }
		app.Do(t, "GET", path, app.Alice.Token, nil).JSON(t, &got)
		if got.Data.Name != fmt.Sprintf("name-%d", i) || *got.Data.Instructions != fmt.Sprintf("instructions-%d", i) {
			t.Fatalf("round %d: name %q, instructions %q: one update was lost", i, got.Data.Name, *got.Data.Instructions)
		}
	}
}
