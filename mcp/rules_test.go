package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/mcp"
)

// TestSameEmailVerdicts: an email address is one rule (answerdesk.IsEmailAddress), so every
// place that takes one, over REST and over MCP, accepts or refuses the same input alike.
// (The CLI's "user create --email" goes through the same UserService.CreateUser as
// POST /api/v2/users.)
func TestSameEmailVerdicts(t *testing.T) {
	long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 190) + ".example" // 263 bytes
	for _, tc := range []struct {
		name  string
		email string
		ok    bool
	}{
		{"a_bare_address_is_accepted", "dana@example.com", true},
		{"a_display_name_is_refused", "dana <dana@example.com>", false},
		{"a_domain_without_a_dot_is_refused", "dana@localhost", false},
		{"an_address_over_254_bytes_is_refused", long, false},
		{"words_are_refused", "dana at example.com", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serveAccount(t)
			alice := s.client(t, s.Alice.Token, false)
			toDo := map[string]any{"account_number": "1001", "delivery_type": "email", "contact": tc.email,
				"message_text": "Your plumber arrives at 9", "from_email": "office@acme.example",
				"schedule": map[string]any{"rule": "immediately"}}
			restOK := func(method, path, token string, body any) func() (bool, string) {
				return func() (bool, string) {
					r := s.Do(t, method, path, token, body)
					if r.Status != http.StatusOK && r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusBadRequest {
						t.Fatalf("%s %s: status %d: %s", method, path, r.Status, r.Body)
					}
					return r.Status == http.StatusOK, string(r.Body)
				}
			}
			mcpOK := func(tool string, args map[string]any) func() (bool, string) {
				return func() (bool, string) {
					res := mcp.Call(t, alice, tool, args)
					return !res.IsError, mcp.Text(res)
				}
			}
			for _, surface := range []struct {
				name string
				try  func() (bool, string)
			}{
				{"rest_message_email", restOK("POST", "/api/v2/messages", s.Alice.Token,
					map[string]any{"message": map[string]any{"content": "Call back", "email": tc.email}})},
				{"mcp_message_email", mcpOK("create_message", map[string]any{"content": "Call back", "email": tc.email})},
				{"rest_to_do_contact", restOK("POST", "/api/v2/to-dos", s.Alice.Token, toDo)},
				{"mcp_to_do_contact", mcpOK("create_to_do", toDo)},
				{"rest_user_email", restOK("POST", "/api/v2/users", s.Admin.Token,
					map[string]any{"email": tc.email, "accounts": []string{"1001"}})},
				{"rest_blacklisted_email", restOK("POST", "/api/v2/accounts/1001/email-blacklist", s.Admin.Token,
					map[string]any{"email": tc.email})},
			} {
				if ok, answer := surface.try(); ok != tc.ok {
					t.Errorf("%s: accepted %v, want %v: %.300s", surface.name, ok, tc.ok, answer)
				}
			}
		})
	}
}
