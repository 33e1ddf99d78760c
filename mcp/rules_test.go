package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/mcp"
	"github.com/answerdesk/answerdesk/rest"
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

// TestSameSearchVerdicts: a site search is one rule (answerdesk.ParseSearch), so
// GET /api/v1/search and the search_site tool accept or refuse the same input alike. Both
// are served by one router (REST's, with the public MCP server mounted as the app mounts
// it), and the tool is called by an mcp-go client over Streamable HTTP.
func TestSameSearchVerdicts(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	cfg := mcp.TestConfig(t, base)
	h := mcp.Handler(mcp.NewPublicServer(cfg), "/mcp/public", cfg)
	rs := &rest.Server{Site: cfg.Site, Search: cfg.Index, BaseURL: base, Logger: cfg.Logger,
		MCP: map[string]http.Handler{"/mcp/public": h}}
	srv.Config.Handler = rs.Handler()
	srv.Start()
	t.Cleanup(func() {
		_ = h.(interface{ Shutdown(context.Context) error }).Shutdown(context.Background())
		srv.Close()
	})
	c := mcp.ConnectWith(t, base+"/mcp/public", false)

	cjk150 := strings.Repeat("電話応対", 37) + "受付" // 150 runes, 450 bytes
	for _, tc := range []struct {
		name  string
		query string
		limit any // nil: not given
		typ   string
		ok    bool
	}{
		{"words", "after hours", nil, "", true},
		{"150_cjk_characters_are_under_the_limit", cjk150, nil, "", true},
		{"200_characters", strings.Repeat("a", 200), nil, "", true},
		{"201_characters", strings.Repeat("a", 201), nil, "", false},
		{"201_cjk_characters", strings.Repeat("電", 201), nil, "", false},
		{"empty", "", nil, "", false},
		{"blank", "   ", nil, "", false},
		{"no_words_is_an_empty_page", "!!!", nil, "", true},
		{"limit_1", "answering", 1, "", true},
		{"limit_50", "answering", 50, "", true},
		{"limit_0", "answering", 0, "", false},
		{"limit_51", "answering", 51, "", false},
		{"type_docs", "webhook", nil, "docs", true},
		{"type_Docs_is_not_a_type", "webhook", nil, "Docs", false},
		{"type_unknown", "webhook", nil, "faq", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := url.Values{"q": {tc.query}}
			args := map[string]any{"query": tc.query}
			if tc.limit != nil {
				v.Set("limit", fmt.Sprint(tc.limit))
				args["limit"] = tc.limit
			}
			if tc.typ != "" {
				v.Set("type", tc.typ)
				args["type"] = tc.typ
			}
			resp, err := http.Get(base + "/api/v1/search?" + v.Encode())
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("REST: status %d, want 200 or 400: %s", resp.StatusCode, body)
			}
			if restOK := resp.StatusCode == http.StatusOK; restOK != tc.ok {
				t.Errorf("REST /api/v1/search: accepted %v, want %v: %.300s", restOK, tc.ok, body)
			}
			res := mcp.Call(t, c, "search_site", args)
			if mcpOK := !res.IsError; mcpOK != tc.ok {
				t.Errorf("MCP search_site: accepted %v, want %v: %.300s", mcpOK, tc.ok, mcp.Text(res))
			}
		})
	}
}
