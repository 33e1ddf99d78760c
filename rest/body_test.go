package rest_test

import (
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
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
