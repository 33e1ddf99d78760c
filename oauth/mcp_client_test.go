package oauth_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/mcptest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/oauth2"
)

// connectByURL is what an MCP client does given only the account server's URL: it is
// refused with 401, discovers the protected resource and authorization server metadata,
// registers itself (RFC 7591), sends the person to sign in and consent, exchanges the code
// with its PKCE verifier, and connects with the token. mcp-go's own OAuth client does every
// step; the test plays the person at the browser.
func connectByURL(t *testing.T, app *testapp.App, email string, scopes ...string) *client.Client {
	t.Helper()
	ctx := context.Background()
	redirect := "http://127.0.0.1:" + loopbackPort(t) + "/oauth/callback"
	c, err := client.NewOAuthStreamableHttpClient(app.Server.URL+"/mcp/account", client.OAuthConfig{
		RedirectURI: redirect, Scopes: scopes, TokenStore: client.NewMemoryTokenStore(), PKCEEnabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "oauth-test-client", Version: "1"}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	_, err = c.Initialize(ctx, init)
	if !client.IsOAuthAuthorizationRequiredError(err) {
		t.Fatalf("initialize without a token: %v, want an authorization-required error", err)
	}
	h := client.GetOAuthHandler(err)
	if err := h.RegisterClient(ctx, "MCP Test Client"); err != nil {
		t.Fatalf("register: %v", err)
	}
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	state, _ := client.GenerateState()
	authURL, err := h.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		t.Fatalf("authorization URL: %v", err)
	}
	if !strings.Contains(authURL, "resource=") {
		t.Errorf("the client sent no resource indicator: %s", authURL)
	}
	b := newBrowser(t, app)
	p := b.signIn(b.get(authURL), email, "test-password")
	q := callback(t, b.decide(p, "allow"), redirect)
	if q.Get("iss") != app.Server.URL {
		t.Errorf("iss = %q", q.Get("iss"))
	}
	if err := h.ProcessAuthorizationResponse(ctx, q.Get("code"), q.Get("state"), verifier); err != nil {
		t.Fatalf("token exchange: %v", err)
	}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize with the token: %v", err)
	}
	return c
}

// postMCP posts a JSON-RPC body to the account MCP server at base with the bearer token
// and the session id (none when ""), and returns the response, its body read and closed.
func postMCP(t testing.TB, c *http.Client, base, token, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp/account", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("post to the account MCP server: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// callTool calls a tool (mcptest.Call) and returns the result with its text.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (*mcpgo.CallToolResult, string) {
	t.Helper()
	res := mcptest.Call(t, c, name, args)
	return res, mcptest.Text(res)
}

func TestMCPClientByURLAlone(t *testing.T) {
	app := newApp(t)
	mine := app.CreateMessage(t, app.Alice, testapp.Start.Add(-time.Hour), map[string]any{"content": "Call back about the leaking boiler"})
	theirs := app.CreateMessage(t, app.Bob, testapp.Start.Add(-time.Hour), map[string]any{"content": "Birch Dental private message"})

	c := connectByURL(t, app, app.Alice.Email)

	tools, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 18 { // the MCP servers docs page: twelve, and six for the To Do lifecycle
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}

	res, text := callTool(t, c, "list_messages", map[string]any{})
	if res.IsError || !strings.Contains(text, "leaking boiler") || strings.Contains(text, "Birch Dental private") {
		t.Errorf("list_messages: error %v, %s", res.IsError, text)
	}
	res, text = callTool(t, c, "get_message", map[string]any{"id": theirs.ID})
	if !res.IsError || !strings.Contains(text, "no message") {
		t.Errorf("another account's message: error %v, %s; want not found", res.IsError, text)
	}
	if res, _ := callTool(t, c, "acknowledge_message", map[string]any{"id": mine.ID}); res.IsError {
		t.Error("acknowledge_message failed")
	}

	res, text = callTool(t, c, "create_to_do", map[string]any{
		"account_number": "1001", "delivery_type": "email", "from_email": "office@acme.example", "contact": "pat@example.com",
		"subject": "Boiler", "message_text": "We will call you back today.", "schedule": map[string]any{"rule": "immediately"},
	})
	if res.IsError {
		t.Fatalf("create_to_do: %s", text)
	}
	var created struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &created); err != nil || created.Data.ID == 0 {
		t.Fatalf("create_to_do result %s", raw)
	}
	resp := app.Do(t, http.MethodGet, "/api/v2/to-dos/"+strconv.FormatInt(created.Data.ID, 10), app.Alice.Token, nil)
	if resp.Status != http.StatusOK {
		t.Errorf("the To Do is not visible through the customer API: %d", resp.Status)
	}
}

func TestMCPScopes(t *testing.T) {
	app := newApp(t)
	c := connectByURL(t, app, app.Alice.Email, "messages:read")
	if res, text := callTool(t, c, "list_messages", map[string]any{}); res.IsError {
		t.Errorf("list_messages with messages:read: %s", text)
	}
	for tool, scope := range map[string]string{"list_to_dos": "todos:read", "list_call_recordings": "recordings:read"} {
		res, text := callTool(t, c, tool, map[string]any{})
		if !res.IsError || !strings.Contains(text, scope) {
			t.Errorf("%s without %s: error %v, %q; want a tool error naming the scope", tool, scope, res.IsError, text)
		}
	}
	res, text := callTool(t, c, "create_message", map[string]any{"content": "x"})
	if !res.IsError || !strings.Contains(text, "messages:write") {
		t.Errorf("create_message without messages:write: %q", text)
	}
}

func TestRevokedGrantIsRefused(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app)
	tok := tokenFor(t, app, cfg, app.Alice.Email)
	grants, err := app.OAuth.Store.ListGrants(context.Background(), app.Alice.ID)
	if err != nil || len(grants) != 1 || grants[0].ClientName != "Test Assistant" {
		t.Fatalf("grants = %v, %v", grants, err)
	}
	if err := app.OAuth.Store.RevokeGrant(context.Background(), app.Bob.ID, grants[0].ID); err == nil {
		t.Fatal("Bob revoked Alice's grant")
	}
	if err := app.OAuth.Store.RevokeGrant(context.Background(), app.Alice.ID, grants[0].ID); err != nil {
		t.Fatal(err)
	}
	if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("access token of a revoked grant: %d", status)
	}
	_, err = cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	assertOAuthError(t, err, "invalid_grant")
}

func TestPurgeExpired(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app)
	tok := tokenFor(t, app, cfg, app.Alice.Email)
	store := app.OAuth.Store.(interface {
		PurgeExpired(context.Context, time.Time) (int64, error)
	})
	ctx := context.Background()

	// Two hours on: the access token is gone, the refresh token and the grant are not.
	n, err := store.PurgeExpired(ctx, testapp.Start.Add(2*time.Hour))
	if err != nil || n < 2 { // the code and the access token (sessions live 12 hours)
		t.Fatalf("purged %d, %v", n, err)
	}
	app.Clock.Advance(2 * time.Hour)
	defer app.Clock.Set(testapp.Start)
	refreshed, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	if err != nil {
		t.Fatalf("refresh after the purge: %v", err)
	}
	// Past the refresh token's 30 days, nothing of the grant is left.
	if _, err := store.PurgeExpired(ctx, testapp.Start.Add(40*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if grants, _ := app.OAuth.Store.ListGrants(ctx, 0); len(grants) != 0 {
		t.Errorf("grants left: %d", len(grants))
	}
	// The client went too: it has had no grant for 30 days.
	_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshed.RefreshToken}).Token()
	assertOAuthError(t, err, "invalid_client")
	if _, err := app.OAuth.Store.FindClient(ctx, cfg.ClientID); err == nil {
		t.Error("an unused client was kept")
	}
}

// An MCP session ID is bound to the user who opened it: another user's valid token with it
// is answered 404 (session not found), so a leaked session ID is no use to anyone else.
func TestSessionsBoundToCaller(t *testing.T) {
	app := newApp(t)
	post := func(token, session, body string) *http.Response {
		t.Helper()
		return postMCP(t, http.DefaultClient, app.Server.URL, token, session, body)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	session := post(app.Alice.Token, "", init).Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no session id")
	}
	if resp := post(app.Alice.Token, session, list); resp.StatusCode != http.StatusOK {
		t.Errorf("Alice with her session: %d", resp.StatusCode)
	}
	if resp := post(app.Bob.Token, session, list); resp.StatusCode != http.StatusNotFound {
		t.Errorf("Bob with Alice's session: %d, want 404", resp.StatusCode)
	}
	if resp := post(app.Alice.Token, session+"x", list); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a forged session id: %d, want 404", resp.StatusCode)
	}
}
