package rest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

type messageList = listBody[answerdesk.Message]

type errorBody struct {
	Status           int                     `json:"status"`
	Code             string                  `json:"code"`
	Message          string                  `json:"message"`
	Hint             string                  `json:"hint"`
	DocumentationURL string                  `json:"documentation_url"`
	Errors           []answerdesk.FieldError `json:"errors"`
}

// wantError asserts the response is the contract's error object with status and code, and
// (for 422) that the named fields are listed.
func wantError(t *testing.T, r *testapp.Response, status int, code string, fields ...string) errorBody {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	var e errorBody
	r.JSON(t, &e)
	if e.Status != status || e.Code != code || e.Message == "" || e.Hint == "" || !strings.HasSuffix(e.DocumentationURL, "/docs/errors#"+code) {
		t.Fatalf("error object = %+v, want status %d code %s with message, hint and documentation_url", e, status, code)
	}
	for _, f := range fields {
		found := false
		for _, fe := range e.Errors {
			found = found || fe.Field == f
		}
		if !found {
			t.Errorf("errors %+v do not name field %q", e.Errors, f)
		}
	}
	if status != http.StatusUnprocessableEntity && len(e.Errors) > 0 {
		t.Errorf("errors present on a %d: %+v", status, e.Errors)
	}
	return e
}

func day(d int) time.Time { return testapp.Start.AddDate(0, 0, -d) }

func TestListMessages(t *testing.T) {
	app := testapp.New(t)
	// Alice's account gets 7 messages over 7 days; Bob's gets one.
	origins := []string{"CALL", "AI_CALL", "CALL", "SMS", "WEB", "CALL", "EMAIL"}
	var alice []*answerdesk.Message
	for i, o := range origins {
		alice = append(alice, app.CreateMessage(t, app.Alice, day(i), map[string]any{"content": fmt.Sprintf("message %d", i), "origin": o}))
	}
	bobs := app.CreateMessage(t, app.Bob, day(0), map[string]any{"content": "birch message"})

	list := func(t *testing.T, token, query string) messageList {
		t.Helper()
		r := app.Do(t, "GET", "/api/v2/messages"+query, token, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		var l messageList
		r.JSON(t, &l)
		return l
	}
	ids := func(l messageList) []int64 {
		var out []int64
		for _, m := range l.Data {
			out = append(out, m.ID)
		}
		return out
	}

	t.Run("newest_first_with_meta", func(t *testing.T) {
		l := list(t, app.Alice.Token, "")
		if len(l.Data) != 7 || l.Data[0].ID != alice[0].ID || l.Data[6].ID != alice[6].ID {
			t.Fatalf("ids %v, want alice's 7 newest first", ids(l))
		}
		if l.Meta.Page != 1 || l.Meta.PageSize != 50 || l.Meta.Total != 7 || l.Meta.TotalPages == nil || *l.Meta.TotalPages != 1 {
			t.Fatalf("meta %+v", l.Meta)
		}
	})
	t.Run("only_own_accounts", func(t *testing.T) {
		for _, m := range list(t, app.Alice.Token, "").Data {
			if m.ID == bobs.ID {
				t.Fatal("alice sees bob's message")
			}
		}
		if l := list(t, app.Bob.Token, ""); len(l.Data) != 1 || l.Data[0].ID != bobs.ID {
			t.Fatalf("bob sees %v", ids(l))
		}
	})
	t.Run("admin_sees_all", func(t *testing.T) {
		if l := list(t, app.Admin.Token, ""); l.Meta.Total != 8 {
			t.Fatalf("admin total %d, want 8", l.Meta.Total)
		}
	})
	t.Run("filters_by_origin_case_insensitively", func(t *testing.T) {
		l := list(t, app.Alice.Token, "?origin=call")
		if l.Meta.Total != 3 {
			t.Fatalf("origin=call total %d, want 3", l.Meta.Total)
		}
		for _, m := range l.Data {
			if m.Origin != "CALL" {
				t.Fatalf("origin %s in a CALL filter", m.Origin)
			}
		}
		if l := list(t, app.Alice.Token, "?origin=Ai_Call"); l.Meta.Total != 1 {
			t.Fatalf("origin=Ai_Call total %d, want 1", l.Meta.Total)
		}
	})
	t.Run("filters_by_inclusive_date_range", func(t *testing.T) {
		// days 1..3 before Start, both ends inclusive
		q := fmt.Sprintf("?start_date=%s&end_date=%s", day(3).Format("01-02-2006"), day(1).Format("01-02-2006"))
		l := list(t, app.Alice.Token, q)
		if got := ids(l); len(got) != 3 || got[0] != alice[1].ID || got[2] != alice[3].ID {
			t.Fatalf("date range ids %v, want %d..%d", got, alice[1].ID, alice[3].ID)
		}
		if l := list(t, app.Alice.Token, "?start_date="+day(0).Format("01-02-2006")); l.Meta.Total != 1 {
			t.Fatalf("start_date today total %d, want 1", l.Meta.Total)
		}
	})
	t.Run("filters_by_status_and_read", func(t *testing.T) {
		app.Do(t, "PATCH", fmt.Sprintf("/api/v2/messages/%d/acknowledge", alice[2].ID), app.Alice.Token, nil)
		app.Do(t, "PATCH", fmt.Sprintf("/api/v2/messages/%d/mark-as-read", alice[4].ID), app.Alice.Token, nil)
		if got := ids(list(t, app.Alice.Token, "?status=acknowledged")); len(got) != 1 || got[0] != alice[2].ID {
			t.Fatalf("status=acknowledged %v", got)
		}
		if got := ids(list(t, app.Alice.Token, "?read=true")); len(got) != 1 || got[0] != alice[4].ID {
			t.Fatalf("read=true %v", got)
		}
		if l := list(t, app.Alice.Token, "?read=false&status=new"); l.Meta.Total != 5 {
			t.Fatalf("read=false&status=new total %d, want 5", l.Meta.Total)
		}
	})
	t.Run("paginates_with_link_header", func(t *testing.T) {
		r := app.Do(t, "GET", "/api/v2/messages?page=2&page_size=3", app.Alice.Token, nil)
		var l messageList
		r.JSON(t, &l)
		if got := ids(l); len(got) != 3 || got[0] != alice[3].ID {
			t.Fatalf("page 2 ids %v", got)
		}
		if l.Meta.Page != 2 || l.Meta.PageSize != 3 || l.Meta.Total != 7 || *l.Meta.TotalPages != 3 {
			t.Fatalf("meta %+v", l.Meta)
		}
		link := r.Header.Get("Link")
		if !strings.Contains(link, `page=3&page_size=3>; rel="next"`) || !strings.Contains(link, `page=1&page_size=3>; rel="prev"`) || !strings.HasPrefix(link, "<"+app.Server.URL+"/api/v2/messages?") {
			t.Fatalf("Link %q", link)
		}
		last := app.Do(t, "GET", "/api/v2/messages?page=3&page_size=3", app.Alice.Token, nil)
		if strings.Contains(last.Header.Get("Link"), `rel="next"`) {
			t.Fatalf("last page has a next link: %s", last.Header.Get("Link"))
		}
	})
	t.Run("page_past_the_end_is_empty", func(t *testing.T) {
		l := list(t, app.Alice.Token, "?page=9")
		if len(l.Data) != 0 || l.Meta.Total != 7 || l.Data == nil {
			t.Fatalf("page 9: %+v", l)
		}
	})
	t.Run("no_token_is_401", func(t *testing.T) {
		r := app.Do(t, "GET", "/api/v2/messages", "", nil)
		wantError(t, r, 401, "unauthorized")
		if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
		}
	})
}

func TestListMessagesRejectsBadInput(t *testing.T) {
	app := testapp.New(t)
	cases := []struct {
		name, query, field string
	}{
		{"page_zero", "?page=0", "page"},
		{"page_negative", "?page=-1", "page"},
		{"page_not_integer", "?page=two", "page"},
		{"page_size_zero", "?page_size=0", "page_size"},
		{"page_size_over_max", "?page_size=201", "page_size"},
		{"page_size_float", "?page_size=1.5", "page_size"},
		{"date_wrong_pattern", "?start_date=2026-11-01", "start_date"},
		{"date_not_real", "?start_date=02-30-2026", "start_date"},
		{"date_month_13", "?end_date=13-01-2026", "end_date"},
		{"date_before_1970", "?end_date=12-31-1969", "end_date"},
		{"start_after_end", "?start_date=11-02-2026&end_date=11-01-2026", "start_date"},
		{"unknown_origin", "?origin=pigeon", "origin"},
		{"unknown_status", "?status=lost", "status"},
		{"read_not_bool", "?read=maybe", "read"},
		{"repeated_param", "?status=new&status=delivered", "status"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, app.Do(t, "GET", "/api/v2/messages"+tc.query, app.Alice.Token, nil), 422, "invalid_parameter", tc.field)
		})
	}
	t.Run("every_bad_field_at_once", func(t *testing.T) {
		wantError(t, app.Do(t, "GET", "/api/v2/messages?page=0&page_size=999&origin=x", app.Alice.Token, nil), 422, "invalid_parameter", "page", "page_size", "origin")
	})
}

func TestRecentMessages(t *testing.T) {
	app := testapp.New(t)
	for i := range 25 {
		app.CreateMessage(t, app.Alice, day(0).Add(-time.Duration(i)*time.Minute), map[string]any{})
	}
	app.CreateMessage(t, app.Bob, day(0), map[string]any{})
	var l messageList
	r := app.Do(t, "GET", "/api/v2/messages/recents", app.Alice.Token, nil)
	r.JSON(t, &l)
	if r.Status != 200 || len(l.Data) != 20 || !l.Data[0].CreatedAt.After(l.Data[19].CreatedAt.Time) {
		t.Fatalf("recents: status %d, %d messages", r.Status, len(l.Data))
	}
	if _, ok := r.Map(t)["meta"]; ok {
		t.Fatal("recents has meta")
	}
	app.Do(t, "GET", "/api/v2/messages/recents?limit=5", app.Alice.Token, nil).JSON(t, &l)
	if len(l.Data) != 5 {
		t.Fatalf("limit=5 gave %d", len(l.Data))
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x"} {
		wantError(t, app.Do(t, "GET", "/api/v2/messages/recents"+q, app.Alice.Token, nil), 422, "invalid_parameter", "limit")
	}
}

func TestGetMessage(t *testing.T) {
	app := testapp.New(t)
	m := app.CreateMessage(t, app.Alice, day(1), map[string]any{"content": "Leak in the basement", "answers": map[string]any{"Callback number": "+15555550100"}})
	var got struct{ Data map[string]any }
	for _, key := range []string{fmt.Sprint(m.ID), m.UUID} {
		r := app.Do(t, "GET", "/api/v2/messages/"+key, app.Alice.Token, nil)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", key, r.Status, r.Body)
		}
		r.JSON(t, &got)
		if got.Data["id"] != float64(m.ID) || got.Data["uuid"] != m.UUID || got.Data["content"] != "Leak in the basement" {
			t.Fatalf("GET %s: %v", key, got.Data)
		}
	}
	t.Run("shape", func(t *testing.T) {
		d := got.Data
		for _, f := range []string{"id", "read", "caller_id", "content", "status", "account_id", "agent_id", "created_at", "delivered_at", "receiver_name", "uuid", "answers", "acknowledged_at", "origin"} {
			if _, ok := d[f]; !ok {
				t.Errorf("field %s missing", f)
			}
		}
		if d["caller_id"] != nil || d["delivered_at"] != nil {
			t.Errorf("absent values are not null: caller_id %v delivered_at %v", d["caller_id"], d["delivered_at"])
		}
		if d["created_at"] != "2026-11-19T15:00:00.000Z" {
			t.Errorf("created_at %v, want ISO 8601 UTC with milliseconds", d["created_at"])
		}
		if d["status"] != "new" || d["origin"] != "API" || d["read"] != false {
			t.Errorf("defaults: status %v origin %v read %v", d["status"], d["origin"], d["read"])
		}
		if a, _ := d["answers"].(map[string]any); a["Callback number"] != "+15555550100" {
			t.Errorf("answers %v", d["answers"])
		}
	})
	for _, key := range []string{"999999", "0", "-1", "abc", "00000000-0000-4000-8000-000000000000", "1e3"} {
		wantError(t, app.Do(t, "GET", "/api/v2/messages/"+key, app.Alice.Token, nil), 404, "not_found")
	}
}

func TestCreateMessage(t *testing.T) {
	app := testapp.New(t)
	post := func(t *testing.T, token string, body any) *testapp.Response {
		return app.Do(t, "POST", "/api/v2/messages", token, body)
	}
	t.Run("creates_with_defaults_on_only_account", func(t *testing.T) {
		r := post(t, app.Alice.Token, `{"message":{"content":"Please call Dana back","caller_id":"+15555550123","answers":{"Reason for call":"Quote"},"unknown_prop":1}}`)
		if r.Status != 200 {
			t.Fatalf("status %d %s", r.Status, r.Body)
		}
		var got struct{ Data answerdesk.Message }
		r.JSON(t, &got)
		m := got.Data
		if m.AccountID != app.Acme.ID || m.Origin != "API" || m.Status != "new" || m.Content != "Please call Dana back" || *m.CallerID != "+15555550123" || m.UUID == "" || string(m.Answers) != `{"Reason for call":"Quote"}` {
			t.Fatalf("created %+v", m)
		}
		if r := app.Do(t, "GET", fmt.Sprint("/api/v2/messages/", m.ID), app.Alice.Token, nil); r.Status != 200 {
			t.Fatalf("created message not readable: %d", r.Status)
		}
	})
	t.Run("origin_from_ai_assistant_and_account_number", func(t *testing.T) {
		r := post(t, app.Admin.Token, map[string]any{"message": map[string]any{"content": "AI took this", "from_ai_assistant": true, "account_number": "1002", "escalation_level_id": 1}})
		var got struct{ Data answerdesk.Message }
		r.JSON(t, &got)
		if r.Status != 200 || got.Data.Origin != "AI_CALL" || got.Data.AccountID != app.Birch.ID || *got.Data.EscalationLevelID != 1 {
			t.Fatalf("status %d %s", r.Status, r.Body)
		}
	})
	t.Run("origin_case_insensitive", func(t *testing.T) {
		var got struct{ Data answerdesk.Message }
		post(t, app.Alice.Token, `{"message":{"content":"x","origin":"chat"}}`).JSON(t, &got)
		if got.Data.Origin != "CHAT" {
			t.Fatalf("origin %q", got.Data.Origin)
		}
	})
	var before messageList
	app.Do(t, "GET", "/api/v2/messages", app.Alice.Token, nil).JSON(t, &before)
	bad := []struct {
		name, token, body string
		status            int
		code, field       string
	}{
		{"malformed_json", app.Alice.Token, `{"message":`, 400, "processing_error", ""},
		{"not_an_object", app.Alice.Token, `[1,2]`, 400, "processing_error", ""},
		{"trailing_data", app.Alice.Token, `{"message":{"content":"a"}} {}`, 400, "processing_error", ""},
		{"missing_message", app.Alice.Token, `{"content":"a"}`, 422, "invalid_parameter", "message"},
		{"message_not_object", app.Alice.Token, `{"message":"hi"}`, 422, "invalid_parameter", "message"},
		{"message_null", app.Alice.Token, `{"message":null}`, 422, "invalid_parameter", "message"},
		{"missing_content", app.Alice.Token, `{"message":{}}`, 422, "invalid_parameter", "content"},
		{"blank_content", app.Alice.Token, `{"message":{"content":"   "}}`, 422, "invalid_parameter", "content"},
		{"content_wrong_type", app.Alice.Token, `{"message":{"content":42}}`, 422, "invalid_parameter", "content"},
		{"origin_unknown", app.Alice.Token, `{"message":{"content":"a","origin":"FAX"}}`, 422, "invalid_parameter", "origin"},
		{"escalation_level_string", app.Alice.Token, `{"message":{"content":"a","escalation_level_id":"one"}}`, 422, "invalid_parameter", "escalation_level_id"},
		{"escalation_level_fraction", app.Alice.Token, `{"message":{"content":"a","escalation_level_id":1.5}}`, 422, "invalid_parameter", "escalation_level_id"},
		{"answers_not_object", app.Alice.Token, `{"message":{"content":"a","answers":[1]}}`, 422, "invalid_parameter", "answers"},
		{"from_ai_not_bool", app.Alice.Token, `{"message":{"content":"a","from_ai_assistant":"yes"}}`, 422, "invalid_parameter", "from_ai_assistant"},
		{"email_malformed", app.Alice.Token, `{"message":{"content":"a","email":"not-an-email"}}`, 422, "invalid_parameter", "email"},
		{"other_members_account", app.Alice.Token, `{"message":{"content":"a","account_number":"1002"}}`, 422, "invalid_parameter", "account_number"},
		{"unknown_account", app.Alice.Token, `{"message":{"content":"a","account_number":"9999"}}`, 422, "invalid_parameter", "account_number"},
		{"admin_without_account", app.Admin.Token, `{"message":{"content":"a"}}`, 422, "invalid_parameter", "account_number"},
		{"content_too_long", app.Alice.Token, `{"message":{"content":"` + strings.Repeat("a", answerdesk.MaxContentLength+1) + `"}}`, 422, "invalid_parameter", "content"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			var fields []string
			if tc.field != "" {
				fields = append(fields, tc.field)
			}
			wantError(t, post(t, tc.token, tc.body), tc.status, tc.code, fields...)
		})
	}
	t.Run("body_over_1MiB_is_413", func(t *testing.T) {
		wantError(t, post(t, app.Alice.Token, `{"message":{"content":"`+strings.Repeat("a", 1<<20)+`"}}`), 413, "payload_too_large")
	})
	t.Run("nothing_stored_on_error", func(t *testing.T) {
		var after messageList
		app.Do(t, "GET", "/api/v2/messages", app.Alice.Token, nil).JSON(t, &after)
		if after.Meta.Total != before.Meta.Total {
			t.Fatalf("alice had %d messages before the rejected creates and %d after", before.Meta.Total, after.Meta.Total)
		}
	})
}

func TestMessageStateChanges(t *testing.T) {
	app := testapp.New(t)
	m := app.CreateMessage(t, app.Alice, day(1), map[string]any{})
	patch := func(action string) answerdesk.Message {
		t.Helper()
		r := app.Do(t, "PATCH", fmt.Sprintf("/api/v2/messages/%d/%s", m.ID, action), app.Alice.Token, nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", action, r.Status, r.Body)
		}
		var got struct{ Data answerdesk.Message }
		r.JSON(t, &got)
		return got.Data
	}
	if got := patch("mark-as-read"); !got.Read {
		t.Fatal("mark-as-read left read false")
	}
	if got := patch("mark-as-read"); !got.Read {
		t.Fatal("mark-as-read twice is not idempotent")
	}
	if got := patch("mark-as-unread"); got.Read {
		t.Fatal("mark-as-unread left read true")
	}
	first := patch("acknowledge")
	if first.Status != "acknowledged" || first.AcknowledgedAt == nil || first.NextEscalationAt != nil {
		t.Fatalf("acknowledge: %+v", first)
	}
	app.Clock.Advance(time.Hour)
	again := patch("acknowledge")
	if !again.AcknowledgedAt.Equal(first.AcknowledgedAt.Time) || !again.UpdatedAt.Equal(first.UpdatedAt.Time) {
		t.Fatalf("second acknowledge changed the message: %v -> %v", first.AcknowledgedAt, again.AcknowledgedAt)
	}
	// by uuid too
	if r := app.Do(t, "PATCH", "/api/v2/messages/"+m.UUID+"/mark-as-read", app.Alice.Token, nil); r.Status != 200 {
		t.Fatalf("PATCH by uuid: %d", r.Status)
	}
	wantError(t, app.Do(t, "PATCH", "/api/v2/messages/424242/acknowledge", app.Alice.Token, nil), 404, "not_found")
	r := app.Do(t, "GET", fmt.Sprintf("/api/v2/messages/%d/acknowledge", m.ID), app.Alice.Token, nil)
	wantError(t, r, 405, "method_not_allowed")
	if r.Header.Get("Allow") != "PATCH" {
		t.Fatalf("Allow %q", r.Header.Get("Allow"))
	}
}
