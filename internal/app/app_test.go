package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/internal/app"
)

// TestOpen builds the service as "answerdesk serve" does and as the tests do, and checks
// what each serves through the one handler.
func TestOpen(t *testing.T) {
	// One service per Config, shared by its scenarios: building the search index is the slow part.
	servers := map[bool]*httptest.Server{}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name    string
		content bool
		method  string
		path    string
		body    string
		want    int
	}{
		{"serve_answers_the_public_mcp_server", true, "POST", "/mcp/public", initialize, http.StatusOK},
		{"serve_answers_the_docs_mcp_server", true, "POST", "/mcp/docs", initialize, http.StatusOK},
		{"serve_asks_a_bearer_on_the_account_mcp_server", true, "POST", "/mcp/account", initialize, http.StatusUnauthorized},
		{"serve_answers_the_public_api", true, "GET", "/api/v1/company", "", http.StatusOK},
		{"serve_mounts_the_oauth_server", true, "GET", "/.well-known/oauth-authorization-server", "", http.StatusOK},
		{"without_content_there_is_no_mcp_server", false, "POST", "/mcp/public", initialize, http.StatusNotFound},
		{"without_content_the_customer_api_asks_a_token", false, "GET", "/api/v2/me", "", http.StatusUnauthorized},
		{"without_content_the_oauth_server_is_mounted", false, "GET", "/.well-known/oauth-authorization-server", "", http.StatusOK},
	} {
		if servers[tc.content] == nil {
			servers[tc.content] = open(t, tc.content)
		}
		t.Run(tc.name, func(t *testing.T) {
			srv := servers[tc.content]
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
			}
		})
	}
}

// open builds the service, with or without the content, on an httptest server.
func open(t *testing.T, withContent bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	cfg := app.Config{DB: filepath.Join(t.TempDir(), "answerdesk.db"), BaseURL: "http://" + srv.Listener.Addr().String(),
		Key: []byte("test-signing-key-0123456789abcdef"), Version: "test"}
	if withContent {
		cfg.Content = content.Embedded()
	}
	m, err := app.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if withContent && len(m.Rest.MCP) != 3 {
		t.Fatalf("the REST server holds %d MCP handlers, want 3", len(m.Rest.MCP))
	}
	srv.Config.Handler = m.Handler
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestStartAndClose: the workers start and Close waits for them and releases everything.
func TestStartAndClose(t *testing.T) {
	m, err := app.Open(context.Background(), app.Config{DB: filepath.Join(t.TempDir(), "answerdesk.db"),
		BaseURL: "http://localhost", Key: []byte("test-signing-key-0123456789abcdef"), Content: content.Embedded()})
	if err != nil {
		t.Fatal(err)
	}
	m.Start(context.Background())
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}
