package mcp

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/ratelimit"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// sharedBudget is the public API and the public and docs MCP servers behind the real
// router, sharing one limiter as cmd/answerdesk wires them; proxies 127.0.0.0/8 are trusted
// so that tests can name clients with X-Forwarded-For.
type sharedBudget struct {
	srv *httptest.Server
}

func newSharedBudget(t *testing.T, limit int) *sharedBudget {
	t.Helper()
	now := time.Date(2026, 11, 22, 12, 0, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	limiter := &ratelimit.Memory{Limit: limit, Window: time.Minute}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	cfg := testConfig(t, base)
	cfg.Limiter, cfg.Now = limiter, clock
	r := &rest.Server{Site: cfg.Site, Search: cfg.Index, BaseURL: base, Logger: cfg.Logger, Now: clock,
		Public: rest.PublicConfig{Limiter: limiter, Limit: limit, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}},
		MCP: map[string]http.Handler{
			"/mcp/public": Handler(NewPublicServer(cfg), "/mcp/public", cfg),
			"/mcp/docs":   Handler(NewDocsServer(cfg), "/mcp/docs", cfg),
		}}
	srv.Config.Handler = r.Handler()
	srv.Start()
	t.Cleanup(srv.Close)
	return &sharedBudget{srv: srv}
}

// mcpClient connects to the server at path as the client at address forwardedFor.
func (b *sharedBudget) mcpClient(t *testing.T, path, forwardedFor string) *client.Client {
	t.Helper()
	return connectWith(t, b.srv.URL+path, false, transport.WithHTTPHeaders(map[string]string{"X-Forwarded-For": forwardedFor}))
}

// api calls GET /api/v1<path> as the client at forwardedFor and returns the status.
func (b *sharedBudget) api(t *testing.T, path, forwardedFor string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/api/v1"+path, nil)
	req.Header.Set("X-Forwarded-For", forwardedFor)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestToolsSpendThePublicBudget: /mcp/public search_site answered 100
// of 100 calls while /api/v1/search answered 429. The public and docs MCP tools now spend
// the same per-client allowance as the public API (same limiter, same key, IPv6 per /64),
// and a call over it is a tool error naming the retry time.
func TestToolsSpendThePublicBudget(t *testing.T) {
	search := map[string]any{"query": "after hours plumbing"}
	t.Run("100_search_site_calls_get_60", func(t *testing.T) {
		b := newSharedBudget(t, 60)
		c := b.mcpClient(t, "/mcp/public", "203.0.113.10")
		ok, limited := 0, 0
		for range 100 {
			res := call(t, c, "search_site", search)
			if res.IsError {
				wantToolError(t, res, "rate_limited", "60 requests per minute", "Retry in 55 seconds")
				limited++
			} else {
				ok++
			}
		}
		if ok != 60 || limited != 40 {
			t.Fatalf("%d answered, %d limited; want 60 and 40", ok, limited)
		}
		if resp := b.api(t, "/search?q=plumbing", "203.0.113.10"); resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("the public API after the MCP calls: %d, want 429", resp.StatusCode)
		}
		if resp := b.api(t, "/search?q=plumbing", "203.0.113.11"); resp.StatusCode != http.StatusOK {
			t.Fatalf("another client: %d, want 200", resp.StatusCode)
		}
	})
	t.Run("public_api_calls_spend_the_tools_allowance", func(t *testing.T) {
		b := newSharedBudget(t, 5)
		for i := range 5 {
			if resp := b.api(t, "/company", "203.0.113.20"); resp.StatusCode != http.StatusOK {
				t.Fatalf("request %d: %d", i, resp.StatusCode)
			}
		}
		for _, tc := range []struct{ path, tool string }{
			{"/mcp/public", "get_company_info"},
			{"/mcp/docs", "searchDocumentation"},
		} {
			args := map[string]any{}
			if tc.tool == "searchDocumentation" {
				args = map[string]any{"query": "rate limits"}
			}
			wantToolError(t, call(t, b.mcpClient(t, tc.path, "203.0.113.20"), tc.tool, args), "rate_limited", "Retry in")
		}
	})
	t.Run("ipv6_clients_count_per_64", func(t *testing.T) {
		b := newSharedBudget(t, 3)
		for i := range 3 {
			c := b.mcpClient(t, "/mcp/docs", fmt.Sprintf("2001:db8:1:2::%x", i+1))
			if res := call(t, c, "searchDocumentation", map[string]any{"query": "errors"}); res.IsError {
				t.Fatalf("call %d: %s", i, text(res))
			}
		}
		c := b.mcpClient(t, "/mcp/docs", "2001:db8:1:2::ffff")
		wantToolError(t, call(t, c, "searchDocumentation", map[string]any{"query": "errors"}), "rate_limited")
		if resp := b.api(t, "/company", "2001:db8:1:2::abcd"); resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("the same /64 on the public API: %d, want 429", resp.StatusCode)
		}
	})
	// account_tools_do_not_spend_it is TestAccountToolsDoNotSpendThePublicLimit in
	// account_test.go (package mcp_test: it needs internal/testapp).
}
