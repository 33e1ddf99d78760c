package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/mcp"
	"github.com/answerdesk/answerdesk/ratelimit"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

var accountToolNames = []string{
	"list_messages", "get_recent_messages", "get_message", "get_message_call_recording", "create_message",
	"acknowledge_message", "mark_message_read", "mark_message_unread", "list_call_recordings",
	"get_call_recording", "list_to_dos", "create_to_do", "get_to_do", "update_to_do", "pause_to_do",
	"resume_to_do", "cancel_to_do", "list_to_do_deliveries",
}

// accountServer is the account MCP server over a testapp (real SQLite, the real REST API
// beside it for comparisons), with a small bearer check as mcp.Config.Authenticate standing in
// for the OAuth one: a customer API token authenticates through the real token service; a token made by
// scoped() stands for a user with only some scopes, the caller built by the real store.
type accountServer struct {
	*testapp.App
	url string

	mu     sync.Mutex
	grants map[string]grant
}

type grant struct {
	userID int64
	scopes []string
}

func serveAccount(t *testing.T, mutate ...func(*mcp.Config)) *accountServer {
	t.Helper()
	app := testapp.New(t)
	srv := httptest.NewUnstartedServer(nil)
	s := &accountServer{App: app, url: "http://" + srv.Listener.Addr().String() + "/mcp/account", grants: map[string]grant{}}
	cfg := mcp.TestConfig(t, "http://"+srv.Listener.Addr().String())
	cfg.Authenticate = s.authenticate
	for _, m := range mutate {
		m(&cfg)
	}
	h := mcp.Handler(mcp.NewAccountServer(cfg, mcp.AccountServices{Messages: app.Messages, Recordings: app.Recordings, ToDos: app.ToDos, API: rest.OpenAPIV2()}), "/mcp/account", cfg)
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(func() {
		_ = h.(interface{ Shutdown(context.Context) error }).Shutdown(context.Background())
		srv.Close()
	})
	return s
}

// authenticate puts the bearer's caller into the request context, as the OAuth middleware
// in front of /mcp/account does, or answers 401.
func (s *accountServer) authenticate(next http.Handler) http.Handler {
	tokens := store.NewTokenService(s.DB)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		g, scoped := s.grants[bearer]
		s.mu.Unlock()
		var c *answerdesk.Caller
		var err error
		if scoped {
			c, err = s.DB.CallerForUser(r.Context(), g.userID, g.scopes)
		} else {
			c, err = tokens.AuthenticateToken(r.Context(), bearer)
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(answerdesk.NewContextWithCaller(r.Context(), c)))
	})
}

// scoped returns a bearer that stands for u with only the given scopes.
func (s *accountServer) scoped(u testapp.User, scopes ...string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	token := fmt.Sprintf("scoped-%d-%d", u.ID, len(s.grants))
	s.grants[token] = grant{userID: u.ID, scopes: scopes}
	return token
}

// client connects an mcp-go client over Streamable HTTP with the bearer.
func (s *accountServer) client(t *testing.T, bearer string, legacy bool) *client.Client {
	t.Helper()
	return mcp.ConnectWith(t, s.url, legacy, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + bearer}))
}

// rest gets a customer API path as u and returns its 200 body.
func (s *accountServer) rest(t *testing.T, u testapp.User, method, path string, body any) []byte {
	t.Helper()
	r := s.Do(t, method, path, u.Token, body)
	if r.Status != http.StatusOK {
		t.Fatalf("%s %s: status %d: %s", method, path, r.Status, r.Body)
	}
	return r.Body
}

// result is a tool's structured content as JSON, after checking that the text content is
// the same JSON.
func result(t *testing.T, res *mcpgo.CallToolResult) []byte {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", mcp.Text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "text content", []byte(mcp.Text(res)), b)
	return b
}

// sameJSON fails unless got and want are equal JSON values.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %.300s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s (want): %v: %.300s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s differs:\n got:  %.1500s\n want: %.1500s", what, got, want)
	}
}

// fixture is the data every account scenario starts from.
type fixture struct {
	s                  *accountServer
	alice              []*answerdesk.Message // newest last
	aliceRec, bobRec   *answerdesk.CallRecording
	aliceCall, bobCall *answerdesk.Message
	bobMsg             *answerdesk.Message
}

func newFixture(t *testing.T) *fixture {
	s := serveAccount(t)
	f := &fixture{s: s}
	day := func(d int) time.Time { return testapp.Start.Add(-time.Hour).AddDate(0, 0, -d) }
	for i, o := range []string{"CALL", "SMS", "web", "EMAIL", "CALL", "AI_CALL"} {
		f.alice = append(f.alice, s.CreateMessage(t, s.Alice, day(6-i), map[string]any{"content": fmt.Sprintf("message %d", i), "origin": strings.ToUpper(o)}))
	}
	f.bobMsg = s.CreateMessage(t, s.Bob, day(0), map[string]any{"content": "birch message"})
	f.aliceRec, f.aliceCall = s.CreateCall(t, s.Alice, s.Acme, day(2).Add(time.Minute), "Plumbing", true)
	f.bobRec, f.bobCall = s.CreateCall(t, s.Bob, s.Birch, day(1).Add(time.Minute), "Dental", true)
	if _, err := s.Messages.SetMessageRead(context.Background(), s.Caller(t, s.Alice), strconv.FormatInt(f.alice[1].ID, 10), true); err != nil {
		t.Fatal(err)
	}
	s.rest(t, s.Alice, "POST", "/api/v2/to-dos", map[string]any{"account_number": "1001", "delivery_type": "call",
		"instructions": "Call the office about the quote", "schedule": map[string]any{"rule": "immediately"}})
	return f
}

func id(m *answerdesk.Message) string { return strconv.FormatInt(m.ID, 10) }

// TestAccountReadTools: every read tool answers exactly what the customer API answers for
// the same query, as the same user.
func TestAccountReadTools(t *testing.T) {
	f := newFixture(t)
	s := f.s
	alice := s.client(t, s.Alice.Token, false)
	admin := s.client(t, s.Admin.Token, true) // sessions (protocol 2025-11-25) carry the caller too
	for _, tc := range []struct {
		name  string
		as    *client.Client
		user  testapp.User
		tool  string
		args  map[string]any
		path  string
		count int // items in data, -1 for one object
	}{
		{"list_messages/every_message_newest_first", alice, s.Alice, "list_messages", nil, "/api/v2/messages", 7},
		{"list_messages/filters_by_origin_case_insensitively", alice, s.Alice, "list_messages", map[string]any{"origin": "call"}, "/api/v2/messages?origin=call", 3},
		{"list_messages/filters_by_days_status_and_read", alice, s.Alice, "list_messages",
			map[string]any{"start_date": "11-15-2026", "end_date": "11-19-2026", "status": "new", "read": false},
			"/api/v2/messages?start_date=11-15-2026&end_date=11-19-2026&status=new&read=false", 5},
		{"list_messages/pages", alice, s.Alice, "list_messages", map[string]any{"page": 2, "page_size": 3}, "/api/v2/messages?page=2&page_size=3", 3},
		{"list_messages/numbers_as_strings_as_in_a_query", alice, s.Alice, "list_messages", map[string]any{"page": "3", "page_size": "3", "read": "true"},
			"/api/v2/messages?page=3&page_size=3&read=true", 0},
		{"list_messages/admin_sees_every_account", admin, s.Admin, "list_messages", nil, "/api/v2/messages", 9},
		{"list_messages/search_by_words", alice, s.Alice, "list_messages", map[string]any{"q": "MESS 3"}, "/api/v2/messages?q=MESS+3", 1},
		{"list_messages/search_finds_only_visible", alice, s.Alice, "list_messages", map[string]any{"q": "birch"}, "/api/v2/messages?q=birch", 0},
		{"get_recent_messages/default_limit", alice, s.Alice, "get_recent_messages", nil, "/api/v2/messages/recents", 7},
		{"get_recent_messages/limit", alice, s.Alice, "get_recent_messages", map[string]any{"limit": 2}, "/api/v2/messages/recents?limit=2", 2},
		{"get_message/by_id", alice, s.Alice, "get_message", map[string]any{"id": id(f.alice[0])}, "/api/v2/messages/" + id(f.alice[0]), -1},
		{"get_message/by_integer_id", alice, s.Alice, "get_message", map[string]any{"id": f.alice[0].ID}, "/api/v2/messages/" + id(f.alice[0]), -1},
		{"get_message/by_uuid", alice, s.Alice, "get_message", map[string]any{"id": f.alice[2].UUID}, "/api/v2/messages/" + f.alice[2].UUID, -1},
		{"get_message_call_recording/signed_audio_url", alice, s.Alice, "get_message_call_recording", map[string]any{"id": f.aliceCall.UUID},
			"/api/v2/messages/" + f.aliceCall.UUID + "/call-recording", -1},
		{"list_call_recordings/every_recording", alice, s.Alice, "list_call_recordings", nil, "/api/v2/call-recordings", 1},
		{"list_call_recordings/filters", admin, s.Admin, "list_call_recordings",
			map[string]any{"account_id": s.Birch.ID, "skill_name": "Dental", "from_date": "11-18-2026", "to_date": "11-20-2026", "page_size": 10},
			fmt.Sprintf("/api/v2/call-recordings?account_id=%d&skill_name=Dental&from_date=11-18-2026&to_date=11-20-2026&page_size=10", s.Birch.ID), 1},
		{"list_call_recordings/sample_of_one", alice, s.Alice, "list_call_recordings", map[string]any{"sample": true}, "/api/v2/call-recordings?sample=true", 1},
		{"get_call_recording", alice, s.Alice, "get_call_recording", map[string]any{"id": strconv.FormatInt(f.aliceRec.ID, 10)},
			"/api/v2/call-recordings/" + strconv.FormatInt(f.aliceRec.ID, 10), -1},
		{"list_to_dos", alice, s.Alice, "list_to_dos", nil, "/api/v2/to-dos", 1},
		{"list_to_dos/past_the_last_page", alice, s.Alice, "list_to_dos", map[string]any{"page": 5, "page_size": 100}, "/api/v2/to-dos?page=5&page_size=100", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := result(t, mcp.Call(t, tc.as, tc.tool, tc.args))
			sameJSON(t, "result and GET "+tc.path, got, s.rest(t, tc.user, "GET", tc.path, nil))
			var body struct {
				Data json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(got, &body)
			var items []json.RawMessage
			if tc.count >= 0 {
				if err := json.Unmarshal(body.Data, &items); err != nil || len(items) != tc.count {
					t.Errorf("data has %d items (%v), want %d: %.300s", len(items), err, tc.count, body.Data)
				}
			} else if !strings.HasPrefix(string(body.Data), "{") {
				t.Errorf("data is not one object: %.300s", body.Data)
			}
		})
	}
	t.Run("get_call_recording/audio_url_serves_the_audio", func(t *testing.T) {
		var out struct {
			Data answerdesk.CallRecording `json:"data"`
		}
		mcp.Structured(t, mcp.Call(t, alice, "get_call_recording", map[string]any{"id": f.aliceRec.ID}), &out)
		if out.Data.Recording == nil || !strings.HasPrefix(*out.Data.Recording, s.Server.URL+"/recordings/") {
			t.Fatalf("recording = %v", out.Data.Recording)
		}
		resp, err := http.Get(*out.Data.Recording)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/wav" {
			t.Errorf("audio: status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	})
}

// TestAccountWriteTools: each write tool's effect is what the customer API then shows.
func TestAccountWriteTools(t *testing.T) {
	f := newFixture(t)
	s := f.s
	alice := s.client(t, s.Alice.Token, false)
	msg := f.alice[0]

	t.Run("acknowledge_message/acknowledges_and_is_idempotent", func(t *testing.T) {
		first := result(t, mcp.Call(t, alice, "acknowledge_message", map[string]any{"id": msg.UUID}))
		after := s.rest(t, s.Alice, "GET", "/api/v2/messages/"+msg.UUID, nil)
		sameJSON(t, "result and the message after", first, after)
		var m struct{ Data answerdesk.Message }
		_ = json.Unmarshal(after, &m)
		if m.Data.Status != answerdesk.StatusAcknowledged || m.Data.AcknowledgedAt == nil || m.Data.NextEscalationAt != nil {
			t.Errorf("after acknowledge: status %s, acknowledged_at %v, next_escalation_at %v", m.Data.Status, m.Data.AcknowledgedAt, m.Data.NextEscalationAt)
		}
		s.Clock.Advance(time.Minute)
		sameJSON(t, "second acknowledge", result(t, mcp.Call(t, alice, "acknowledge_message", map[string]any{"id": msg.ID})), first)
	})
	t.Run("mark_message_read_and_unread", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			read bool
		}{{"mark_message_read", true}, {"mark_message_read", true}, {"mark_message_unread", false}, {"mark_message_unread", false}} {
			got := result(t, mcp.Call(t, alice, tc.tool, map[string]any{"id": id(msg)}))
			after := s.rest(t, s.Alice, "GET", "/api/v2/messages/"+id(msg), nil)
			sameJSON(t, tc.tool+" result and the message after", got, after)
			if want := fmt.Sprintf(`"read":%v`, tc.read); !strings.Contains(string(after), want) {
				t.Errorf("after %s: %.200s does not have %s", tc.tool, after, want)
			}
		}
	})
	t.Run("create_message/stored_as_the_api_shows_it", func(t *testing.T) {
		got := result(t, mcp.Call(t, alice, "create_message", map[string]any{
			"content": "Leaking water heater, call back today", "origin": "call", "first_name": "Ana", "is_emergency": true,
			"answers": map[string]any{"issue": "leak", "floor": 2},
		}))
		var m struct{ Data answerdesk.Message }
		_ = json.Unmarshal(got, &m)
		if m.Data.AccountID != s.Acme.ID || m.Data.Origin != "CALL" || !m.Data.IsEmergency || m.Data.FirstName == nil || *m.Data.FirstName != "Ana" ||
			m.Data.Status != answerdesk.StatusNew || string(m.Data.Answers) != `{"floor":2,"issue":"leak"}` {
			t.Errorf("created %+v", m.Data)
		}
		sameJSON(t, "result and GET", got, s.rest(t, s.Alice, "GET", "/api/v2/messages/"+m.Data.UUID, nil))
	})
	t.Run("create_to_do/listed_by_the_api", func(t *testing.T) {
		got := result(t, mcp.Call(t, alice, "create_to_do", map[string]any{
			"account_number": "1001", "delivery_type": "SMS", "from": "+15550101001", "contact": "(555) 555-0123",
			"message_text": "Your plumber arrives at 9", "name": "Reminder",
			"schedule": map[string]any{"frequency": "weekly", "days": []any{"monday", "thursday"}, "times": []any{"09:30"}},
		}))
		var td struct{ Data answerdesk.ToDo }
		_ = json.Unmarshal(got, &td)
		if td.Data.DeliveryType != "sms" || td.Data.Contact == nil || *td.Data.Contact != "+15555550123" || td.Data.From == nil || *td.Data.From != "5550101001" ||
			td.Data.Schedule.NextOccurrence == nil || !strings.Contains(fmt.Sprint(td.Data.Schedule.Rule["rrule"]), "FREQ=WEEKLY") {
			t.Errorf("created %+v", td.Data)
		}
		var list struct{ Data []json.RawMessage }
		_ = json.Unmarshal(s.rest(t, s.Alice, "GET", "/api/v2/to-dos", nil), &list)
		if len(list.Data) != 2 {
			t.Fatalf("GET /api/v2/to-dos has %d To Dos, want 2", len(list.Data))
		}
		var one struct{ Data json.RawMessage }
		_ = json.Unmarshal(got, &one)
		sameJSON(t, "result and the newest To Do of GET /api/v2/to-dos", one.Data, list.Data[0])
	})
	t.Run("create_to_do/account_number_sent_as_a_number", func(t *testing.T) {
		// The MCP Inspector CLI turns --tool-arg account_number=1001 into a number.
		res := mcp.Call(t, alice, "create_to_do", map[string]any{
			"account_number": 1001, "delivery_type": "call", "instructions": "Call Pat back",
			"schedule": map[string]any{"rule": "immediately"},
		})
		if res.IsError {
			t.Fatalf("create_to_do: %s", mcp.Text(res))
		}
		res = mcp.Call(t, alice, "create_to_do", map[string]any{
			"account_number": 1001.5, "delivery_type": "call", "instructions": "x", "schedule": map[string]any{"rule": "immediately"},
		})
		if !res.IsError {
			t.Error("1001.5 was taken as an account number")
		}
	})
}

// TestAccountToolErrors: bad arguments are tool errors naming every bad field, with the
// customer API's own words: each field error REST answers for the same input is in the
// tool error's text.
func TestAccountToolErrors(t *testing.T) {
	f := newFixture(t)
	s := f.s
	alice := s.client(t, s.Alice.Token, false)
	sms := map[string]any{"account_number": "1001", "delivery_type": "sms", "from": "+15550101001", "message_text": "hi", "schedule": map[string]any{"rule": "immediately"}}
	with := func(m map[string]any, k string, v any) map[string]any {
		out := map[string]any{}
		for key, val := range m {
			out[key] = val
		}
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		tool      string
		args      map[string]any
		method    string // the same input to the customer API; "" when it has none
		path      string
		body      any
		fragments []string
	}{
		{"list_messages/unknown_origin", "list_messages", map[string]any{"origin": "FAX"}, "GET", "/api/v2/messages?origin=FAX", nil,
			[]string{"origin: must be one of CALL, AI_CALL"}},
		{"list_messages/iso_date", "list_messages", map[string]any{"start_date": "2026-11-01"}, "GET", "/api/v2/messages?start_date=2026-11-01", nil,
			[]string{"start_date: must be a date in the form MM-DD-YYYY"}},
		{"list_messages/every_bad_field", "list_messages", map[string]any{"origin": "fax", "page_size": 500, "end_date": "02-30-2026"},
			"GET", "/api/v2/messages?origin=fax&page_size=500&end_date=02-30-2026", nil,
			[]string{"3 invalid parameters", "origin:", "page_size: must be an integer between 1 and 200", "end_date: is not a real calendar date"}},
		{"list_messages/wrong_types", "list_messages", map[string]any{"read": "maybe", "page": 1.5}, "GET", "/api/v2/messages?read=maybe&page=1.5", nil,
			[]string{"read: must be true or false", "page: must be an integer"}},
		{"get_recent_messages/limit_out_of_range", "get_recent_messages", map[string]any{"limit": 0}, "GET", "/api/v2/messages/recents?limit=0", nil,
			[]string{"limit: must be an integer between 1 and 100"}},
		{"create_message/content_required", "create_message", map[string]any{"first_name": "Ana"}, "POST", "/api/v2/messages", map[string]any{"message": map[string]any{"first_name": "Ana"}},
			[]string{"content: is required"}},
		{"create_message/wrong_types", "create_message", map[string]any{"content": "x", "is_emergency": "yes", "escalation_level_id": "two", "non_message_type": "prank"},
			"POST", "/api/v2/messages", map[string]any{"message": map[string]any{"content": "x", "is_emergency": "yes", "escalation_level_id": "two", "non_message_type": "prank"}},
			[]string{"is_emergency: must be a boolean", "escalation_level_id: must be an integer", "non_message_type: must be one of"}},
		{"create_message/account_not_usable", "create_message", map[string]any{"content": "x", "account_number": "1002"},
			"POST", "/api/v2/messages", map[string]any{"message": map[string]any{"content": "x", "account_number": "1002"}},
			[]string{"account_number: is not an account you can use"}},
		{"create_to_do/sms_without_contact", "create_to_do", sms, "POST", "/api/v2/to-dos", sms,
			[]string{"contact: is required when delivery_type is sms"}},
		{"create_to_do/from_not_the_accounts", "create_to_do", with(with(sms, "contact", "+15555550123"), "from", "+15550101002"), "POST", "/api/v2/to-dos",
			with(with(sms, "contact", "+15555550123"), "from", "+15550101002"), []string{"from: is not an SMS-enabled number of account 1001"}},
		{"create_to_do/another_users_account", "create_to_do", with(with(sms, "contact", "+15555550123"), "account_number", "1002"), "POST", "/api/v2/to-dos",
			with(with(sms, "contact", "+15555550123"), "account_number", "1002"), []string{"account_number: is not an account you can use"}},
		{"create_to_do/schedule_checked", "create_to_do", with(with(sms, "contact", "+15555550123"), "schedule", map[string]any{"frequency": "weekly", "times": []any{"25:00"}}),
			"POST", "/api/v2/to-dos", with(with(sms, "contact", "+15555550123"), "schedule", map[string]any{"frequency": "weekly", "times": []any{"25:00"}}),
			[]string{"schedule.days: is required for weekly schedules", `schedule.times: "25:00" is not a time HH:MM`}},
		{"create_to_do/ai_outbound_call_not_released", "create_to_do", map[string]any{"account_number": "1001", "delivery_type": "ai_outbound_call", "contact": "+15555550123",
			"instructions": "Confirm the visit", "schedule": map[string]any{"rule": "immediately"}}, "", "", nil,
			[]string{"ai_outbound_call is not released on this server", "delivery_type: ai_outbound_call is not available", "--feature ai-outbound-call"}},
		{"create_to_do/ai_outbound_call_not_released_incomplete", "create_to_do", map[string]any{"delivery_type": "ai_outbound_call"}, "", "", nil,
			[]string{"ai_outbound_call is not released on this server", "delivery_type: ai_outbound_call is not available"}},
		{"list_call_recordings/bad_filters", "list_call_recordings", map[string]any{"account_id": "acme", "from_date": "11-20-2026", "to_date": "11-01-2026", "sample": "often"},
			"GET", "/api/v2/call-recordings?account_id=acme&from_date=11-20-2026&to_date=11-01-2026&sample=often", nil,
			[]string{"sample: must be true or false"}},
		{"list_call_recordings/bad_values", "list_call_recordings", map[string]any{"account_id": "acme", "from_date": "11-20-2026", "to_date": "11-01-2026"},
			"GET", "/api/v2/call-recordings?account_id=acme&from_date=11-20-2026&to_date=11-01-2026", nil,
			[]string{"account_id: must be a positive integer account id", "from_date: must not be after to_date"}},
		{"list_call_recordings/nul_in_skill_name", "list_call_recordings", map[string]any{"skill_name": "Main\x00"},
			"GET", "/api/v2/call-recordings?skill_name=Main%00", nil,
			[]string{"skill_name: " + answerdesk.InvalidTextMessage}},
		{"list_to_dos/page_size_over_the_maximum", "list_to_dos", map[string]any{"page_size": 101}, "GET", "/api/v2/to-dos?page_size=101", nil,
			[]string{"page_size: must be an integer between 1 and 100"}},
		{"list_to_dos/unknown_state", "list_to_dos", map[string]any{"state": "done"}, "GET", "/api/v2/to-dos?state=done", nil,
			[]string{"state: must be one of active, paused, completed, cancelled"}},
		{"update_to_do/account_number_named", "update_to_do", map[string]any{"id": "1", "account_number": "1001", "delivery_type": "sms"}, "PATCH", "/api/v2/to-dos/1",
			map[string]any{"account_number": "1001", "delivery_type": "sms"}, []string{"account_number: cannot be changed", "delivery_type: cannot be changed"}},
		{"update_to_do/merged_result_validated", "update_to_do", map[string]any{"id": "1", "contact": "call me maybe", "instructions": nil}, "PATCH", "/api/v2/to-dos/1",
			map[string]any{"contact": "call me maybe", "instructions": nil}, []string{"contact: must be a phone number", "instructions: is required when delivery_type is call"}},
		{"update_to_do/schedule_checked", "update_to_do", map[string]any{"id": "1", "schedule": map[string]any{"frequency": "daily", "times": []any{"09:00"}, "until": "2026-01-01", "count": 3}},
			"PATCH", "/api/v2/to-dos/1", map[string]any{"schedule": map[string]any{"frequency": "daily", "times": []any{"09:00"}, "until": "2026-01-01", "count": 3}},
			[]string{"schedule.count: cannot be combined with until"}},
		{"list_to_dos/every_bad_argument", "list_to_dos", map[string]any{"page": "abc", "state": "bogus"}, "GET", "/api/v2/to-dos?page=abc&state=bogus", nil,
			[]string{"page: must be an integer", "state: must be one of"}},
		{"get_to_do/not_found", "get_to_do", map[string]any{"id": "999999"}, "GET", "/api/v2/to-dos/999999", nil, []string{`no to-do "999999"`}},
		{"cancel_to_do/not_found", "cancel_to_do", map[string]any{"id": "999999"}, "DELETE", "/api/v2/to-dos/999999", nil, []string{`no to-do "999999"`}},
		{"list_to_do_deliveries/not_found", "list_to_do_deliveries", map[string]any{"id": "999999"}, "GET", "/api/v2/to-dos/999999/deliveries", nil, []string{`no to-do "999999"`}},
		// The argument's schema says what REST's path parameter does (digits): a value that
		// cannot match is a bad argument, where REST's path finds no To Do.
		{"list_to_do_deliveries/id_not_digits", "list_to_do_deliveries", map[string]any{"id": "abc"}, "", "", nil, []string{"id: must match ^[0-9]+$"}},
		{"pause_to_do/id_not_digits", "pause_to_do", map[string]any{"id": "a\ufffdb"}, "", "", nil, []string{"id: must match ^[0-9]+$"}},
		{"get_message/id_required", "get_message", nil, "", "", nil, []string{"id: is required"}},
		{"get_message/unknown_argument", "get_message", map[string]any{"id": "1", "include": "answers"}, "", "", nil,
			[]string{"include", "is not an argument of this tool", "this tool takes only id"}},
		{"get_message/not_found", "get_message", map[string]any{"id": "999999"}, "GET", "/api/v2/messages/999999", nil, []string{`no message "999999"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mcp.Call(t, alice, tc.tool, tc.args)
			mcp.WantToolError(t, res, tc.fragments...)
			if tc.method == "" {
				return
			}
			r := s.Do(t, tc.method, tc.path, s.Alice.Token, tc.body)
			var e struct {
				Message string
				Errors  []answerdesk.FieldError
			}
			r.JSON(t, &e)
			if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusNotFound {
				t.Fatalf("REST answered %d: %s", r.Status, r.Body)
			}
			msg := mcp.Text(res)
			if !strings.Contains(msg, e.Message) {
				t.Errorf("tool error %q does not say REST's message %q", msg, e.Message)
			}
			for _, fe := range e.Errors {
				if !strings.Contains(msg, fe.Field+": "+fe.Message) {
					t.Errorf("tool error %q lacks REST's field error %s: %s", msg, fe.Field, fe.Message)
				}
			}
		})
	}
}

// TestAccountVisibility: another account's data is never visible, nor changeable, and
// is "not found" exactly as for an id that does not exist.
func TestAccountVisibility(t *testing.T) {
	f := newFixture(t)
	s := f.s
	alice := s.client(t, s.Alice.Token, false)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_message", map[string]any{"id": id(f.bobMsg)}},
		{"get_message", map[string]any{"id": f.bobMsg.UUID}},
		{"get_message_call_recording", map[string]any{"id": id(f.bobCall)}},
		{"acknowledge_message", map[string]any{"id": id(f.bobMsg)}},
		{"mark_message_read", map[string]any{"id": f.bobMsg.UUID}},
		{"get_call_recording", map[string]any{"id": f.bobRec.ID}},
	} {
		t.Run(tc.tool+"/"+fmt.Sprint(tc.args["id"]), func(t *testing.T) {
			mcp.WantToolError(t, mcp.Call(t, alice, tc.tool, tc.args), "no ", fmt.Sprint(tc.args["id"]))
		})
	}
	t.Run("bobs_message_unchanged", func(t *testing.T) {
		var m struct{ Data answerdesk.Message }
		_ = json.Unmarshal(s.rest(t, s.Bob, "GET", "/api/v2/messages/"+id(f.bobMsg), nil), &m)
		if m.Data.Status != answerdesk.StatusNew || m.Data.Read {
			t.Errorf("Bob's message changed by Alice's calls: status %s, read %v", m.Data.Status, m.Data.Read)
		}
	})
	t.Run("lists_hold_only_alices", func(t *testing.T) {
		for _, tool := range []string{"list_messages", "get_recent_messages", "list_call_recordings"} {
			var out struct {
				Data []struct {
					AccountID     int64  `json:"account_id"`
					AccountNumber string `json:"account_number"`
				}
			}
			mcp.Structured(t, mcp.Call(t, alice, tool, nil), &out)
			for _, d := range out.Data {
				if d.AccountID != 0 && d.AccountID != s.Acme.ID || d.AccountNumber != "" && d.AccountNumber != "1001" {
					t.Errorf("%s returned an item of another account: %+v", tool, d)
				}
			}
		}
	})
}

// TestAccountScopes: a sign-in without the scope a tool needs gets a tool error naming it,
// and nothing changes; with the scope, the same call works.
func TestAccountScopes(t *testing.T) {
	f := newFixture(t)
	s := f.s
	const (
		mr, mw, rr, tr, tw = answerdesk.ScopeMessagesRead, answerdesk.ScopeMessagesWrite, answerdesk.ScopeRecordingsRead, answerdesk.ScopeTodosRead, answerdesk.ScopeTodosWrite
	)
	msg := f.alice[0]
	toDo := map[string]any{"account_number": "1001", "delivery_type": "call", "instructions": "Call back", "schedule": map[string]any{"rule": "immediately"}}
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		needs   []string
		missing string // the scope the error must name when the others are granted
	}{
		{"list_messages", nil, []string{mr}, mr},
		{"get_recent_messages", nil, []string{mr}, mr},
		{"get_message", map[string]any{"id": id(msg)}, []string{mr}, mr},
		{"get_message_call_recording", map[string]any{"id": id(f.aliceCall)}, []string{mr, rr}, rr},
		{"get_message_call_recording", map[string]any{"id": id(f.aliceCall)}, []string{mr, rr}, mr},
		{"create_message", map[string]any{"content": "hello"}, []string{mw}, mw},
		{"acknowledge_message", map[string]any{"id": id(msg)}, []string{mw}, mw},
		{"mark_message_read", map[string]any{"id": id(msg)}, []string{mw}, mw},
		{"mark_message_unread", map[string]any{"id": id(msg)}, []string{mw}, mw},
		{"list_call_recordings", nil, []string{rr}, rr},
		{"get_call_recording", map[string]any{"id": f.aliceRec.ID}, []string{rr}, rr},
		{"list_to_dos", nil, []string{tr}, tr},
		{"create_to_do", toDo, []string{tw}, tw},
	} {
		t.Run(tc.tool+"/without_"+tc.missing, func(t *testing.T) {
			before := s.rest(t, s.Alice, "GET", "/api/v2/messages?page_size=200", nil)
			todos := s.rest(t, s.Alice, "GET", "/api/v2/to-dos", nil)
			others := slices.DeleteFunc(slices.Clone(answerdesk.AllScopes), func(x string) bool { return x == tc.missing })
			mcp.WantToolError(t, mcp.Call(t, s.client(t, s.scoped(s.Alice, others...), false), tc.tool, tc.args), "lacks the scope "+tc.missing)
			sameJSON(t, "messages after the refused call", s.rest(t, s.Alice, "GET", "/api/v2/messages?page_size=200", nil), before)
			sameJSON(t, "To Dos after the refused call", s.rest(t, s.Alice, "GET", "/api/v2/to-dos", nil), todos)

			result(t, mcp.Call(t, s.client(t, s.scoped(s.Alice, tc.needs...), false), tc.tool, tc.args))
		})
	}
}

// TestAccountUnauthenticated: without a caller in the context (no mcp.Config.Authenticate),
// every tool answers "not authenticated" and calls no service.
func TestAccountUnauthenticated(t *testing.T) {
	s := serveAccount(t, func(cfg *mcp.Config) { cfg.Authenticate = nil }) // no caller in the context
	c := mcp.ConnectWith(t, s.url, false)
	for _, name := range accountToolNames {
		mcp.WantToolError(t, mcp.Call(t, c, name, map[string]any{"id": "1", "content": "x"}), "not authenticated")
	}
}

// TestAccountToolDefinitions checks the twelve tools: named as the contract says, each
// with a title, a description that says its scope, described arguments, an output schema
// with data, and the annotations of a read or a write.
func TestAccountToolDefinitions(t *testing.T) {
	s := mcp.NewAccountServer(mcp.TestConfig(t, mcp.SnapshotBase), mcp.DefinitionsOnly)
	tools := s.ListTools()
	var names []string
	for n := range tools {
		names = append(names, n)
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(accountToolNames))
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	idempotentWrites := []string{"acknowledge_message", "mark_message_read", "mark_message_unread", "pause_to_do", "resume_to_do", "cancel_to_do"}
	// Cancelling stops a To Do for good and an update overwrites it (the MCP servers docs page).
	destructive := []string{"cancel_to_do", "update_to_do"}
	// These make (or let) the scheduler text, email and call people outside answerdesk.
	openWorld := []string{"create_to_do", "update_to_do", "resume_to_do"}
	for _, name := range names {
		tool := tools[name].Tool
		t.Run(name, func(t *testing.T) {
			if len(tool.Description) < 80 || !strings.Contains(tool.Description, "scope") {
				t.Errorf("description too short or without its scope: %q", tool.Description)
			}
			for arg, p := range tool.InputSchema.Properties {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					t.Errorf("argument %s has no description", arg)
				}
			}
			if tool.InputSchema.AdditionalProperties != false {
				t.Errorf("input schema allows unknown arguments")
			}
			if _, ok := tool.OutputSchema.Properties["data"]; tool.OutputSchema.Type != "object" || !ok {
				t.Errorf("no output schema with data: %+v", tool.OutputSchema)
			}
			a := tool.Annotations
			read := strings.HasPrefix(name, "list_") || strings.HasPrefix(name, "get_")
			idem := read || slices.Contains(idempotentWrites, name)
			open, destroys := slices.Contains(openWorld, name), slices.Contains(destructive, name)
			if a.Title == "" || a.ReadOnlyHint == nil || *a.ReadOnlyHint != read || a.DestructiveHint == nil || *a.DestructiveHint != destroys ||
				a.OpenWorldHint == nil || *a.OpenWorldHint != open || a.IdempotentHint == nil || *a.IdempotentHint != idem {
				t.Errorf("annotations %+v; want readOnly %v, idempotent %v, destructive %v, open world %v, a title", a, read, idem, destroys, open)
			}
		})
	}
}

// TestAccountToDoLifecycleTools: the lifecycle tools answer what the customer API answers
// for the same change, and refuse what it refuses.
func TestAccountToDoLifecycleTools(t *testing.T) {
	f := newFixture(t)
	s := f.s
	alice := s.client(t, s.Alice.Token, false)
	created := s.rest(t, s.Alice, "POST", "/api/v2/to-dos", map[string]any{"account_number": "1001", "delivery_type": "call",
		"contact": "+15555550123", "instructions": "Weekly check-in", "schedule": map[string]any{"frequency": "weekly", "days": []string{"monday"}, "times": []string{"09:00"}}})
	var td struct{ Data answerdesk.ToDo }
	if err := json.Unmarshal(created, &td); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(td.Data.ID, 10)
	state := func(b []byte) string {
		var v struct{ Data answerdesk.ToDo }
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v.Data.State
	}
	for _, step := range []struct {
		tool  string
		args  map[string]any
		state string
	}{
		{"pause_to_do", nil, "paused"},
		{"pause_to_do", nil, "paused"},
		{"resume_to_do", nil, "active"},
		{"update_to_do", map[string]any{"name": "Monday check-in", "schedule": map[string]any{"frequency": "weekly", "days": []string{"monday"}, "times": []string{"10:30"}, "count": 4}}, "active"},
		{"get_to_do", nil, "active"},
		{"cancel_to_do", nil, "cancelled"},
		{"cancel_to_do", nil, "cancelled"},
	} {
		args := map[string]any{"id": id}
		for k, v := range step.args {
			args[k] = v
		}
		got := result(t, mcp.Call(t, alice, step.tool, args))
		if st := state(got); st != step.state {
			t.Fatalf("%s: state %s, want %s", step.tool, st, step.state)
		}
		sameJSON(t, step.tool+" vs GET /api/v2/to-dos/{id}", got, s.rest(t, s.Alice, "GET", "/api/v2/to-dos/"+id, nil))
	}
	got := result(t, mcp.Call(t, alice, "get_to_do", map[string]any{"id": id}))
	var v struct{ Data answerdesk.ToDo }
	_ = json.Unmarshal(got, &v)
	if v.Data.Name != "Monday check-in" || v.Data.Schedule.Rule["count"] != float64(4) || v.Data.Schedule.NextOccurrence != nil {
		t.Fatalf("after update and cancel: %s", got)
	}
	mcp.WantToolError(t, mcp.Call(t, alice, "resume_to_do", map[string]any{"id": id}), "state: is cancelled")
	mcp.WantToolError(t, mcp.Call(t, alice, "update_to_do", map[string]any{"id": id, "name": "again"}), "state: is cancelled")
	sameJSON(t, "list_to_do_deliveries", result(t, mcp.Call(t, alice, "list_to_do_deliveries", map[string]any{"id": id})),
		s.rest(t, s.Alice, "GET", "/api/v2/to-dos/"+id+"/deliveries", nil))
	sameJSON(t, "list_to_dos state=cancelled", result(t, mcp.Call(t, alice, "list_to_dos", map[string]any{"state": "cancelled"})),
		s.rest(t, s.Alice, "GET", "/api/v2/to-dos?state=cancelled", nil))
	// Another account's To Do is not found, to every tool.
	bob := s.client(t, s.Bob.Token, false)
	for _, tool := range []string{"get_to_do", "pause_to_do", "resume_to_do", "cancel_to_do", "list_to_do_deliveries"} {
		mcp.WantToolError(t, mcp.Call(t, bob, tool, map[string]any{"id": id}), "no to-do")
	}
}

// TestAccountToolsDoNotSpendThePublicLimit: the account tools are behind OAuth, so the
// public API's rate limit (Config.Limiter) is not spent by them.
func TestAccountToolsDoNotSpendThePublicLimit(t *testing.T) {
	spent := &ratelimit.Memory{Limit: 1, Window: time.Minute}
	s := serveAccount(t, func(c *mcp.Config) { c.Limiter = spent })
	c := s.client(t, s.Alice.Token, false)
	for i := range 3 {
		if res := mcp.Call(t, c, "list_messages", map[string]any{"page_size": 1}); res.IsError {
			t.Fatalf("call %d: %s", i, mcp.Text(res))
		}
	}
}

// lockedBuffer is a log destination the server's goroutines may write concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		out = append(out, m)
	}
	return out
}

// brokenLimiter fails every Take, as a shared limiter store that is down would.
type brokenLimiter struct{}

func (brokenLimiter) Take(context.Context, string, int, time.Time) (answerdesk.RateDecision, error) {
	return answerdesk.RateDecision{}, errors.New("limiter store unreachable")
}

// TestInternalErrorLogsRequestID: an MCP tool's internal error is logged with the request
// id the client sent (X-Request-Id), so an operator finds the line a user reports.
func TestInternalErrorLogsRequestID(t *testing.T) {
	app := testapp.New(t)
	var logs lockedBuffer
	cfg := mcp.TestConfig(t, app.Server.URL)
	cfg.Logger = slog.New(answerdesk.NewLogHandler(slog.NewJSONHandler(&logs, nil)))
	cfg.Limiter = brokenLimiter{}
	h := mcp.Handler(mcp.NewPublicServer(cfg), "/mcp/public", cfg)
	t.Cleanup(func() { _ = h.(interface{ Shutdown(context.Context) error }).Shutdown(context.Background()) })
	app.Mount("/mcp/public", h)
	c := mcp.ConnectWith(t, app.Server.URL+"/mcp/public", false,
		transport.WithHTTPHeaders(map[string]string{"X-Request-Id": "support-ticket-42"}))
	mcp.WantToolError(t, mcp.Call(t, c, "get_company_info", nil), "internal error")
	found := false
	for _, l := range logs.lines(t) {
		if l["level"] == "ERROR" {
			found = true
			if l["request_id"] != "support-ticket-42" {
				t.Errorf("error line without the request id: %v", l)
			}
		}
	}
	if !found {
		t.Fatal("no error was logged")
	}
}
