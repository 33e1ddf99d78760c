package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/rest"
)

// TestMCPRoutes checks how the router exposes the MCP servers it is given: each at its
// path and at <path>/mcp (for the MCP Inspector CLI), and the discovery card.
func TestMCPRoutes(t *testing.T) {
	seen := map[string]string{}
	server := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen[name] = r.URL.Path })
	}
	srv := &rest.Server{Logger: quietLogger(),
		MCP: map[string]http.Handler{"/mcp/public": server("public"), "/mcp/docs": server("docs")}}
	ts := httptest.NewServer(nil)
	defer ts.Close()
	srv.BaseURL = ts.URL
	ts.Config.Handler = srv.Handler()
	for path, want := range map[string][2]string{
		"/mcp/public": {"public", "/mcp/public"}, "/mcp/public/mcp": {"public", "/mcp/public"}, "/mcp/docs/mcp": {"docs", "/mcp/docs"},
	} {
		resp, err := http.Post(ts.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if seen[want[0]] != want[1] {
			t.Fatalf("POST %s reached %v", path, seen)
		}
	}
	resp, body := get(t, ts.URL+"/.well-known/mcp")
	var card struct {
		Servers []struct{ URL, Transport, Auth string }
	}
	if err := json.Unmarshal([]byte(body), &card); err != nil || resp.StatusCode != 200 || len(card.Servers) != 2 ||
		card.Servers[0].URL != ts.URL+"/mcp/public" || card.Servers[0].Transport != "streamable-http" || card.Servers[1].Auth != "none" {
		t.Fatalf("card %d %s", resp.StatusCode, body)
	}
}
