package oauth_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/latency"
	"github.com/answerdesk/answerdesk/internal/mcptest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"golang.org/x/oauth2"
)

// BenchmarkAccountServer compares the account MCP server's tools, called with an OAuth
// access token and with a customer API token, against the same operations over REST, on
// one account with 1,000 messages: one request at a time over loopback.
func BenchmarkAccountServer(b *testing.B) {
	app := newBenchApp(b)
	for i := range 1000 {
		app.CreateMessage(b, app.Alice, testapp.Start.Add(-time.Duration(i)*time.Minute), map[string]any{"content": "Benchmark message"})
	}
	oauthTok := tokenFor(b, app, publicClient(b, app), app.Alice.Email).AccessToken
	mcpClient := func(bearer string) *client.Client {
		c, _ := mcptest.Connect(b, app.Server.URL+"/mcp/account", "", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + bearer}))
		return c
	}
	callTool := func(c *client.Client, name string, args map[string]any) {
		if res := mcptest.Call(b, c, name, args); res.IsError {
			b.Fatalf("%s: %s", name, mcptest.Text(res))
		}
	}
	for _, cred := range []struct{ name, token string }{{"oauth", oauthTok}, {"api_token", app.Alice.Token}} {
		c := mcpClient(cred.token)
		b.Run("mcp_list_messages_50/"+cred.name, func(b *testing.B) {
			latency.Measure(b, "ops/s", func() { callTool(c, "list_messages", map[string]any{"page_size": 50}) })
		})
		b.Run("mcp_get_recent_messages_1/"+cred.name, func(b *testing.B) {
			latency.Measure(b, "ops/s", func() { callTool(c, "get_recent_messages", map[string]any{"limit": 1}) })
		})
	}
	httpClient := app.Server.Client()
	// The server's side alone: the same tools/call posted as JSON-RPC with the response
	// discarded, as the REST requests below are (the mcp-go client's decoding of the reply,
	// which carries the data twice, as structured content and as JSON text, is not counted).
	post := func(session, body string) *http.Response {
		resp := postMCP(b, httpClient, app.Server.URL, oauthTok, session, body)
		if resp.StatusCode >= 300 { // 202 for the notification
			b.Fatalf("post: %v", resp.Status)
		}
		return resp
	}
	session := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`).Header.Get("Mcp-Session-Id")
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.Run("mcp_server_side_list_messages_50/oauth", func(b *testing.B) {
		latency.Measure(b, "ops/s", func() {
			post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_messages","arguments":{"page_size":50}}}`)
		})
	})
	get := func(path string) {
		req, _ := http.NewRequest(http.MethodGet, app.Server.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+app.Alice.Token)
		resp, err := httpClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %v", path, err)
		}
		resp.Body.Close()
	}
	b.Run("rest_list_messages_50", func(b *testing.B) { latency.Measure(b, "ops/s", func() { get("/api/v2/messages?page_size=50") }) })
	b.Run("rest_recent_messages_1", func(b *testing.B) { latency.Measure(b, "ops/s", func() { get("/api/v2/messages/recents?limit=1") }) })
}

// BenchmarkTokenEndpoint measures refresh_token grants (each rotates the refresh token:
// one write transaction) and the bearer check of an access token.
func BenchmarkTokenEndpoint(b *testing.B) {
	app := newBenchApp(b)
	cfg := publicClient(b, app)
	tok := tokenFor(b, app, cfg, app.Alice.Email)
	ctx := context.Background()
	b.Run("refresh", func(b *testing.B) {
		refresh := tok.RefreshToken
		latency.Measure(b, "ops/s", func() {
			t, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refresh}).Token()
			if err != nil {
				b.Fatal(err)
			}
			refresh = t.RefreshToken
		})
	})
	b.Run("authenticate_access_token", func(b *testing.B) {
		latency.Measure(b, "ops/s", func() {
			if _, err := app.OAuth.AuthenticateBearer(ctx, tok.AccessToken, app.Server.URL+"/mcp/account"); err != nil {
				b.Fatal(err)
			}
		})
	})
}
