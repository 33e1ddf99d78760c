package rest_test

import (
	"fmt"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestBodiesThatAreNotOneObject checks that every operation with a body refuses a body that
// is not one JSON object alike: 400 processing_error, one wording, whatever the body is for.
func TestBodiesThatAreNotOneObject(t *testing.T) {
	app := testapp.New(t)
	routes := []struct{ method, path string }{
		{"POST", "/api/v2/messages"},
		{"POST", "/api/v2/to-dos"},
		{"PATCH", "/api/v2/to-dos/1"},
		{"POST", "/api/v2/on-call-contacts"},
		{"POST", "/api/v2/accounts"},
		{"PATCH", "/api/v2/accounts/1001"},
		{"POST", "/api/v2/accounts/1001/sms-numbers"},
		{"POST", "/api/v2/accounts/1001/sending-domains"},
		{"POST", "/api/v2/accounts/1001/email-blacklist"},
		{"POST", "/api/v2/users"},
		{"PATCH", "/api/v2/users/1"},
	}
	bodies := map[string]string{
		"malformed":          `{"message":`,
		"array":              `[1,2]`,
		"null":               `null`,
		"empty":              ``,
		"data_after":         `{"message":{"content":"a"}} {}`,
		"brace_after":        `{"message":{"content":"a"}}}`,
		"bracket_after":      `{"message":{"content":"a"}}]`,
		"string_after_space": `{} "x"`,
	}
	for _, rt := range routes {
		for name, body := range bodies {
			t.Run(rt.method+rt.path+"/"+name, func(t *testing.T) {
				e := wantError(t, app.Do(t, rt.method, rt.path, app.Admin.Token, body), 400, "processing_error")
				if e.Message != "the request body must be a JSON object" {
					t.Fatalf("message %q", e.Message)
				}
			})
		}
	}
}

// TestTextWithNULIsRefused checks that a body holding the NUL character (\u0000) in any
// string, at any depth, is a 422 naming where, on every engine: PostgreSQL cannot keep a
// NUL in text, so a body SQLite took was a 500 there. A backslash written before u0000 is
// text like any other and is kept.
func TestTextWithNULIsRefused(t *testing.T) {
	for _, engine := range testdb.Engines() {
		t.Run(engine, func(t *testing.T) {
			app := testapp.NewOn(t, engine)
			todo := app.CreateToDo(t, app.Alice, `{"account_number": "1001", "delivery_type": "call", "instructions": "Call back", "schedule": {"rule": "immediately"}}`)
			cases := []struct {
				name, method, path, token, body string
				fields                          []string
			}{
				{"message content", "POST", "/api/v2/messages", app.Alice.Token,
					`{"message": {"content": "a\u0000b"}}`, []string{"content"}}, // named as every other message error
				{"message answer", "POST", "/api/v2/messages", app.Alice.Token,
					`{"message": {"content": "ab", "answers": {"Reason": ["x", "y\u0000"]}}}`, []string{"answers.Reason[1]"}},
				{"to-do instructions", "POST", "/api/v2/to-dos", app.Alice.Token,
					`{"account_number": "1001", "delivery_type": "call", "instructions": "x\u0000", "schedule": {"rule": "immediately"}}`, []string{"instructions"}},
				{"to-do change", "PATCH", fmt.Sprintf("/api/v2/to-dos/%d", todo.ID), app.Alice.Token,
					`{"instructions": "\u0000"}`, []string{"instructions"}},
				{"contact name and data value", "POST", "/api/v2/on-call-contacts", app.Alice.Token,
					`{"account_number": "1001", "name": "Board\u0000", "delivery_methods": [{"type": "external_api", "url": "https://hooks.example/x", "payload_type": "JSON",
					  "data": [{"field": "id", "value": "{{message.id}}"}, {"field": "text", "value": "\u0000"}]}]}`,
					[]string{"name", "delivery_methods[0].data[1].value"}},
				{"account name", "POST", "/api/v2/accounts", app.Admin.Token,
					`{"number": "7001", "name": "Cedar\u0000"}`, []string{"name"}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					e := wantError(t, app.Do(t, c.method, c.path, c.token, c.body), 422, "invalid_parameter", c.fields...)
					if len(e.Errors) != len(c.fields) {
						t.Errorf("errors %+v, want exactly %v", e.Errors, c.fields)
					}
				})
			}
			r := app.Do(t, "POST", "/api/v2/messages", app.Alice.Token, `{"message": {"content": "a\\u0000b"}}`)
			var m struct {
				Data struct {
					Content string `json:"content"`
				} `json:"data"`
			}
			if r.Status != 200 {
				t.Fatalf("an escaped backslash: status %d, body %s", r.Status, r.Body)
			}
			if r.JSON(t, &m); m.Data.Content != `a\u0000b` {
				t.Errorf("content %q, want the six characters kept", m.Data.Content)
			}
		})
	}
}
