package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/mcp"
	"github.com/answerdesk/answerdesk/rest"
	"golang.org/x/oauth2"
)

// newApp is a testapp with the account MCP server mounted behind the bearer check.
func newApp(t *testing.T) *testapp.App { return newBenchApp(t) }

func newBenchApp(t testing.TB) *testapp.App {
	t.Helper()
	app := testapp.New(t)
	cfg := mcp.Config{BaseURL: app.Server.URL, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Authenticate: app.Rest.RequireBearer("/mcp/account")}
	srv := mcp.NewAccountServer(cfg, mcp.AccountServices{Messages: app.Messages, Recordings: app.Recordings, ToDos: app.ToDos, API: rest.OpenAPIV2()})
	app.Mount("/mcp/account", mcp.Handler(srv, "/mcp/account", cfg))
	return app
}

func getJSON(t *testing.T, u string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, resp.Header, out
}

func TestMetadata(t *testing.T) {
	app := newApp(t)
	base := app.Server.URL

	t.Run("authorization server metadata (RFC 8414)", func(t *testing.T) {
		status, _, m := getJSON(t, base+"/.well-known/oauth-authorization-server")
		if status != http.StatusOK {
			t.Fatalf("status %d", status)
		}
		want := map[string]any{
			"issuer": base, "authorization_endpoint": base + "/oauth/authorize", "token_endpoint": base + "/oauth/token",
			"registration_endpoint": base + "/oauth/register", "revocation_endpoint": base + "/oauth/revoke",
			"client_id_metadata_document_supported": true, "authorization_response_iss_parameter_supported": true,
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s = %v, want %v", k, m[k], v)
			}
		}
		if got := m["code_challenge_methods_supported"].([]any); len(got) != 1 || got[0] != "S256" {
			t.Errorf("code_challenge_methods_supported = %v, want [S256]", got)
		}
		methods, _ := json.Marshal(m["token_endpoint_auth_methods_supported"])
		if !strings.Contains(string(methods), `"none"`) {
			t.Errorf("token_endpoint_auth_methods_supported = %s, want none among them", methods)
		}
	})

	t.Run("protected resource metadata (RFC 9728)", func(t *testing.T) {
		status, _, m := getJSON(t, base+"/.well-known/oauth-protected-resource/mcp/account")
		if status != http.StatusOK || m["resource"] != base+"/mcp/account" {
			t.Fatalf("status %d, resource %v", status, m["resource"])
		}
		if _, _, alias := getJSON(t, base+"/.well-known/oauth-protected-resource/mcp/account/mcp"); alias["resource"] != base+"/mcp/account/mcp" {
			t.Errorf("the alias's metadata names %v", alias["resource"])
		}
		if as := m["authorization_servers"].([]any); len(as) != 1 || as[0] != base {
			t.Errorf("authorization_servers = %v", as)
		}
		if sc := m["scopes_supported"].([]any); len(sc) != 5 {
			t.Errorf("scopes_supported = %v", sc)
		}
	})

	t.Run("401 points at the resource metadata and names the scopes", func(t *testing.T) {
		for _, path := range []string{"/mcp/account", "/mcp/account/mcp"} {
			req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := `Bearer resource_metadata="` + base + `/.well-known/oauth-protected-resource` + path + `", scope="messages:read messages:write recordings:read todos:read todos:write"`
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
				t.Errorf("%s: %d %q, want 401 %q", path, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
			}
		}
		status, challenge := bearerStatus(t, app, "aat_"+strings.Repeat("A", 43))
		if status != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) {
			t.Errorf("unknown token: %d %q, want 401 with error=invalid_token", status, challenge)
		}
	})

	t.Run("a foreign Origin is 403 before credentials are looked at", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp/account", strings.NewReader(`{}`))
		req.Header.Set("Origin", "https://evil.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("status %d, want 403", resp.StatusCode)
		}
	})
}

func TestAuthorizationCodeFlow(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app)
	tok := tokenFor(t, app, cfg, app.Alice.Email)

	if tok.TokenType != "Bearer" || !strings.HasPrefix(tok.AccessToken, "aat_") || !strings.HasPrefix(tok.RefreshToken, "art_") {
		t.Fatalf("token = %+v", tok)
	}
	if d := time.Until(tok.Expiry); d < 50*time.Minute || d > 61*time.Minute {
		t.Errorf("access token expires in %v, want an hour", d)
	}
	if scope, _ := tok.Extra("scope").(string); scope != "messages:read messages:write recordings:read todos:read todos:write" {
		t.Errorf("scope = %q, want every scope when none was asked for", scope)
	}
	if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusOK {
		t.Fatalf("the access token at /mcp/account: %d, want 200", status)
	}
	if status, _ := bearerStatus(t, app, app.Alice.Token); status != http.StatusOK {
		t.Fatalf("a customer API token at /mcp/account: %d, want 200", status)
	}

	t.Run("the access token is not a customer API token", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, app.Server.URL+"/api/v2/messages", nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("status %d, want 401: the audience is the account MCP server", resp.StatusCode)
		}
	})

	t.Run("refresh rotates, and reusing an old refresh token revokes the family", func(t *testing.T) {
		ctx := context.Background()
		refreshed, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
		if refreshed.RefreshToken == tok.RefreshToken || refreshed.AccessToken == tok.AccessToken {
			t.Fatal("refresh did not rotate the tokens")
		}
		if status, _ := bearerStatus(t, app, refreshed.AccessToken); status != http.StatusOK {
			t.Fatalf("refreshed access token: %d", status)
		}
		// Within seconds, the same refresh token again is a client refreshing twice at once:
		// refused, and nothing revoked.
		_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		assertOAuthError(t, err, "invalid_grant")
		if status, _ := bearerStatus(t, app, refreshed.AccessToken); status != http.StatusOK {
			t.Fatalf("a reuse within the grace revoked the grant: %d", status)
		}
		app.Clock.Advance(answerdesk.RefreshReuseGrace + time.Second)
		defer app.Clock.Set(testapp.Start)
		_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		assertOAuthError(t, err, "invalid_grant")
		for name, access := range map[string]string{"first": tok.AccessToken, "refreshed": refreshed.AccessToken} {
			if status, _ := bearerStatus(t, app, access); status != http.StatusUnauthorized {
				t.Errorf("%s access token after refresh reuse: %d, want 401", name, status)
			}
		}
		_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: refreshed.RefreshToken}).Token()
		assertOAuthError(t, err, "invalid_grant")
	})
}

func assertOAuthError(t testing.TB, err error, code string) {
	t.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != code {
		t.Fatalf("error = %v, want OAuth error %s", err, code)
	}
}

func TestCodeExchangeRefusals(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app)
	ctx := context.Background()

	t.Run("wrong verifier, and the code is spent", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		_, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
		assertOAuthError(t, err, "invalid_grant")
		_, err = cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
		assertOAuthError(t, err, "invalid_grant")
	})

	t.Run("no verifier", func(t *testing.T) {
		code := authorize(t, newBrowser(t, app), cfg, oauth2.GenerateVerifier(), app.Alice.Email)
		_, err := cfg.Exchange(ctx, code)
		assertOAuthError(t, err, "invalid_request")
	})

	t.Run("a reused code revokes the tokens it issued", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		_, err = cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
		assertOAuthError(t, err, "invalid_grant")
		if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusUnauthorized {
			t.Errorf("access token of a replayed code: %d, want 401", status)
		}
		_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		assertOAuthError(t, err, "invalid_grant")
	})

	t.Run("expired code", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		app.Clock.Advance(11 * time.Minute)
		defer app.Clock.Set(testapp.Start)
		_, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
		assertOAuthError(t, err, "invalid_grant")
	})

	t.Run("code of another client", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		other := publicClient(t, app)
		_, err := other.Exchange(ctx, code, oauth2.VerifierOption(verifier))
		assertOAuthError(t, err, "invalid_grant")
	})

	t.Run("redirect_uri differing from the authorization request", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		_, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("redirect_uri", "http://127.0.0.1:53682/other"))
		assertOAuthError(t, err, "invalid_grant")
	})

	t.Run("a token exchange naming another resource", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		_, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", "https://other.example/mcp"))
		assertOAuthError(t, err, "invalid_target")
	})

	t.Run("a token is good only for the resource it was issued for", func(t *testing.T) {
		tok := tokenFor(t, app, cfg, app.Alice.Email)
		for _, resource := range []string{"https://other.example/mcp/account", app.Server.URL + "/api/v2", app.Server.URL + "/mcp/docs"} {
			if _, err := app.OAuth.AuthenticateBearer(ctx, tok.AccessToken, resource); err == nil {
				t.Errorf("accepted at %s", resource)
			}
		}
		for _, resource := range []string{app.Server.URL + "/mcp/account", app.Server.URL + "/mcp/account/mcp"} {
			if _, err := app.OAuth.AuthenticateBearer(ctx, tok.AccessToken, resource); err != nil {
				t.Errorf("refused at %s: %v", resource, err)
			}
		}
	})

	t.Run("expired access token", func(t *testing.T) {
		tok := tokenFor(t, app, cfg, app.Alice.Email)
		app.Clock.Advance(61 * time.Minute)
		defer app.Clock.Set(testapp.Start)
		if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", status)
		}
	})

	t.Run("revoked through RFC 7009", func(t *testing.T) {
		tok := tokenFor(t, app, cfg, app.Alice.Email)
		revoke := func(token string) int {
			resp, err := http.PostForm(app.Server.URL+"/oauth/revoke", url.Values{"token": {token}, "client_id": {cfg.ClientID}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if status := revoke(tok.AccessToken); status != http.StatusOK {
			t.Fatalf("revoke: %d", status)
		}
		if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusUnauthorized {
			t.Errorf("revoked access token: %d, want 401", status)
		}
		if status := revoke(tok.RefreshToken); status != http.StatusOK {
			t.Fatalf("revoke refresh: %d", status)
		}
		_, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		assertOAuthError(t, err, "invalid_grant")
		if status := revoke("art_unknown"); status != http.StatusOK {
			t.Errorf("revoking an unknown token: %d, want 200 (RFC 7009 §2.2)", status)
		}
	})
}

func TestAuthorizeRefusals(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app)
	b := newBrowser(t, app)
	// Sign in once; the session carries over to every request below.
	b.signIn(b.get("/login"), app.Alice.Email, "test-password")
	verifier := oauth2.GenerateVerifier()

	authURL := func(mod func(q url.Values)) string {
		u, _ := url.Parse(cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
		q := u.Query()
		mod(q)
		u.RawQuery = q.Encode()
		return u.String()
	}
	redirected := []struct {
		name string
		mod  func(q url.Values)
		code string
	}{
		{"plain PKCE method", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request"},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request"},
		{"response_type token", func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type"},
		{"unknown scope", func(q url.Values) { q.Set("scope", "messages:read admin") }, "invalid_scope"},
		{"another resource", func(q url.Values) { q.Set("resource", "https://other.example/mcp") }, "invalid_target"},
		{"this server, another path", func(q url.Values) { q.Set("resource", app.Server.URL+"/api/v2") }, "invalid_target"},
	}
	// Until the user has consented to the client, errors are shown, never redirected: any
	// one can register a client (RFC 9700 §4.11).
	for _, tc := range redirected {
		t.Run(tc.name+", before consent, is shown", func(t *testing.T) {
			p := b.get(authURL(tc.mod))
			if p.status != http.StatusBadRequest || p.header.Get("Location") != "" || !strings.Contains(p.body, "Authorization failed") {
				t.Errorf("got %d Location %q", p.status, p.header.Get("Location"))
			}
		})
	}
	code := authorize(t, b, cfg, verifier, app.Alice.Email)
	if _, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range redirected {
		t.Run(tc.name+", after consent, goes back to the client", func(t *testing.T) {
			q := callback(t, b.get(authURL(tc.mod)), cfg.RedirectURL)
			if q.Get("error") != tc.code || q.Get("state") != "st" || q.Get("iss") != app.Server.URL {
				t.Errorf("callback = %v, want error %s with state and iss", q, tc.code)
			}
		})
	}

	t.Run("signed out, a bad request is shown, not redirected (no open redirector)", func(t *testing.T) {
		stranger := newBrowser(t, app)
		p := stranger.get(authURL(func(q url.Values) { q.Set("response_type", "token") }))
		if p.status != http.StatusBadRequest || p.header.Get("Location") != "" {
			t.Errorf("got %d Location %q", p.status, p.header.Get("Location"))
		}
	})

	shown := []struct {
		name string
		mod  func(q url.Values)
	}{
		{"redirect URI not registered", func(q url.Values) { q.Set("redirect_uri", "https://evil.example/callback") }},
		{"redirect URI with another path", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:53682/other") }},
		{"unknown client", func(q url.Values) { q.Set("client_id", "adc_nobody") }},
		{"no client", func(q url.Values) { q.Del("client_id") }},
	}
	for _, tc := range shown {
		t.Run(tc.name+" is shown, never redirected", func(t *testing.T) {
			p := b.get(authURL(tc.mod))
			if p.status != http.StatusBadRequest || p.header.Get("Location") != "" || !strings.Contains(p.body, "Authorization failed") {
				t.Errorf("got %d Location %q", p.status, p.header.Get("Location"))
			}
		})
	}

	t.Run("loopback redirect URI with another port is accepted", func(t *testing.T) {
		port := loopbackPort(t)
		other := *cfg
		other.RedirectURL = "http://127.0.0.1:" + port + "/callback"
		code := authorize(t, b, &other, verifier, app.Alice.Email)
		if _, err := other.Exchange(context.Background(), code, oauth2.VerifierOption(verifier)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("deny", func(t *testing.T) {
		q := callback(t, b.decide(b.get(cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier))), "deny"), cfg.RedirectURL)
		if q.Get("error") != "access_denied" || q.Get("state") != "st" || q.Get("code") != "" || q.Get("iss") != app.Server.URL {
			t.Errorf("callback = %v", q)
		}
	})

	t.Run("consent without the CSRF token", func(t *testing.T) {
		p := b.get(cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
		form := p.hidden()
		form.Del("csrf_token")
		form.Set("decision", "allow")
		got := b.post("/oauth/authorize", form)
		if got.status != http.StatusForbidden || got.header.Get("Location") != "" {
			t.Errorf("got %d Location %q, want 403", got.status, got.header.Get("Location"))
		}
		form.Set("csrf_token", "forged")
		if got := b.post("/oauth/authorize", form); got.status != http.StatusForbidden {
			t.Errorf("forged token: %d, want 403", got.status)
		}
	})

	t.Run("consent from a browser without a session", func(t *testing.T) {
		p := b.get(cfg.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
		form := p.hidden()
		form.Set("decision", "allow")
		stranger := newBrowser(t, app)
		if got := stranger.post("/oauth/authorize", form); got.status != http.StatusUnauthorized || got.header.Get("Location") != "" {
			t.Errorf("got %d, want 401 and no code", got.status)
		}
	})

	t.Run("consent names the client and the scopes asked for", func(t *testing.T) {
		narrow := *cfg
		narrow.Scopes = []string{"messages:read"}
		p := b.get(narrow.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
		if !strings.Contains(p.body, "Test Assistant") || !strings.Contains(p.body, "(messages:read)") || strings.Contains(p.body, "(todos:write)") {
			t.Errorf("consent page: %.800s", p.body)
		}
		for _, want := range []string{"registered itself with answerdesk, which has not verified", "an application on this computer", "http://127.0.0.1:53682"} {
			if !strings.Contains(p.body, want) {
				t.Errorf("consent page does not say %q", want)
			}
		}
		if p.header.Get("X-Frame-Options") != "DENY" || !strings.Contains(p.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Error("the consent page can be framed")
		}
	})
}

func TestSignIn(t *testing.T) {
	app := newApp(t)

	t.Run("wrong password", func(t *testing.T) {
		b := newBrowser(t, app)
		p := b.signIn(b.get("/login"), app.Alice.Email, "nope")
		if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "Wrong email or password") {
			t.Errorf("got %d", p.status)
		}
	})

	t.Run("missing CSRF token", func(t *testing.T) {
		b := newBrowser(t, app)
		b.get("/login")
		p := b.post("/login", url.Values{"email": {app.Alice.Email}, "password": {"test-password"}})
		if p.status != http.StatusForbidden {
			t.Errorf("got %d, want 403", p.status)
		}
	})

	t.Run("cookies are HttpOnly and SameSite=Lax", func(t *testing.T) {
		b := newBrowser(t, app)
		p := b.get("/login")
		form := p.hidden()
		form.Set("email", app.Alice.Email)
		form.Set("password", "test-password")
		req, _ := http.NewRequest(http.MethodPost, app.Server.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		client := *b.client
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var session *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == "answerdesk_session" {
				session = c
			}
		}
		if resp.StatusCode != http.StatusSeeOther || session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode {
			t.Fatalf("status %d, session cookie %+v", resp.StatusCode, session)
		}
		if loc := resp.Header.Get("Location"); loc != "/settings/keys" {
			t.Errorf("Location %q, want /settings/keys", loc)
		}
	})

	t.Run("return_to stays on this site", func(t *testing.T) {
		for _, to := range []string{"https://evil.example/", "//evil.example/", "/\\evil.example", "/\t/evil.example", "/%09/evil.example", "/docs/x", "javascript:alert(1)"} {
			b := newBrowser(t, app)
			p := b.signIn(b.get("/login?return_to="+url.QueryEscape(to)), app.Alice.Email, "test-password")
			if p.url.Host != strings.TrimPrefix(app.Server.URL, "http://") || p.url.Path != "/settings/keys" {
				t.Errorf("return_to %q led to %s", to, p.url)
			}
		}
	})

	t.Run("parallel attempts cannot outrun the throttle", func(t *testing.T) {
		var wg sync.WaitGroup
		statuses := make(chan int, 30)
		for range 30 {
			b := newBrowser(t, app)
			p := b.get("/login")
			wg.Go(func() { statuses <- b.signIn(p, app.Admin.Email, "wrong").status })
		}
		wg.Wait()
		close(statuses)
		checked := 0
		for st := range statuses {
			if st == http.StatusUnauthorized {
				checked++
			} else if st != http.StatusTooManyRequests {
				t.Errorf("status %d", st)
			}
		}
		if checked != 10 {
			t.Errorf("%d passwords checked in parallel, want 10", checked)
		}
		app.Clock.Advance(16 * time.Minute)
		defer app.Clock.Set(testapp.Start)
	})

	t.Run("a cross-site sign-out changes nothing", func(t *testing.T) {
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noRedirect.PostForm(app.Server.URL+"/logout", url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(resp.Cookies()) != 0 {
			t.Errorf("cookies set: %v", resp.Cookies())
		}
	})

	t.Run("throttled after 10 attempts per email", func(t *testing.T) {
		b := newBrowser(t, app)
		for i := range 10 {
			if p := b.signIn(b.get("/login"), app.Bob.Email, "wrong"); p.status != http.StatusUnauthorized {
				t.Fatalf("attempt %d: %d", i+1, p.status)
			}
		}
		p := b.signIn(b.get("/login"), app.Bob.Email, "test-password")
		if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "" {
			t.Errorf("11th attempt: %d, Retry-After %q; want 429 even with the right password", p.status, p.header.Get("Retry-After"))
		}
		app.Clock.Advance(16 * time.Minute)
		defer app.Clock.Set(testapp.Start)
		if p := b.signIn(b.get("/login"), app.Bob.Email, "test-password"); p.url.Path != "/settings/keys" {
			t.Errorf("after the window: %s %d", p.url, p.status)
		}
	})
}

// TestAuthorizeOpenRedirect: a client anyone registered with an https
// redirect URI cannot use the authorization endpoint to bounce users to it: a bad request
// is shown as an error page unless the signed-in user has consented to that client,
// directly and chained after /login?return_to=.
func TestAuthorizeOpenRedirect(t *testing.T) {
	app := newApp(t)
	evil := "https://evil.example/landing"
	status, out := register(t, app, map[string]any{"client_name": "Totally Legit", "redirect_uris": []string{evil}, "token_endpoint_auth_method": "none"})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, out)
	}
	attack := "/oauth/authorize?" + url.Values{"client_id": {out["client_id"].(string)}, "response_type": {"x"}}.Encode()
	tests := []struct {
		name string
		open func(t *testing.T) page
	}{
		{"signed_in_user_sent_to_the_endpoint", func(t *testing.T) page {
			b := newBrowser(t, app)
			b.signIn(b.get("/login"), app.Alice.Email, "test-password")
			return b.get(attack)
		}},
		{"chained_after_sign_in", func(t *testing.T) page {
			b := newBrowser(t, app)
			p := b.get("/login?return_to=" + url.QueryEscape(attack))
			return b.signIn(p, app.Alice.Email, "test-password")
		}},
		{"signed_out", func(t *testing.T) page {
			return newBrowser(t, app).get(attack)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.open(t)
			if loc := p.header.Get("Location"); strings.HasPrefix(loc, "https://evil.example") || p.url.Host == "evil.example" {
				t.Fatalf("redirected to the registered client: %d %q", p.status, loc)
			}
			if tt.name != "signed_out" && (p.status != http.StatusBadRequest || !strings.Contains(p.body, "Authorization failed")) {
				t.Fatalf("want the error page, got %d at %s: %.300s", p.status, p.url, p.body)
			}
		})
	}
}

// TestRefreshNarrowsScope: a refresh asking for fewer scopes gets an
// access token with only those (RFC 6749 §6); the refresh token keeps the grant's, so a
// later refresh without a scope gets them all back.
func TestRefreshNarrowsScope(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app, "messages:read", "todos:read")
	tok := tokenFor(t, app, cfg, app.Alice.Email)
	ctx := context.Background()
	resource := app.Server.URL + "/mcp/account"
	refresh := func(refreshToken, scope string) map[string]any {
		t.Helper()
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {cfg.ClientID}}
		if scope != "" {
			form.Set("scope", scope)
		}
		resp, err := http.PostForm(app.Server.URL+"/oauth/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("refresh with scope %q: %d %v", scope, resp.StatusCode, body)
		}
		return body
	}
	scopesOf := func(access string) []string {
		t.Helper()
		c, err := app.OAuth.AuthenticateBearer(ctx, access, resource)
		if err != nil {
			t.Fatal(err)
		}
		return c.Scopes
	}
	steps := []struct {
		name, ask, want string
	}{
		{"narrower_scope_gives_a_narrower_access_token", "messages:read", "messages:read"},
		{"no_scope_gives_the_grant_again", "", "messages:read todos:read"},
		{"the_other_scope_alone", "todos:read", "todos:read"},
	}
	rt := tok.RefreshToken
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			body := refresh(rt, st.ask)
			rt = body["refresh_token"].(string)
			if body["scope"] != st.want {
				t.Errorf("response scope %q, want %q", body["scope"], st.want)
			}
			if got := strings.Join(scopesOf(body["access_token"].(string)), " "); got != st.want {
				t.Errorf("access token carries %q, want %q", got, st.want)
			}
		})
	}
}

// TestConsentProvenance: a self-registered client chooses its own
// name; the consent page says beside it where the client came from (registered on a date,
// unverified, and the host it answers to), so the name alone cannot impersonate.
func TestConsentProvenance(t *testing.T) {
	app := newApp(t)
	redirect := "https://claude.example.net/callback"
	status, out := register(t, app, map[string]any{"client_name": "Claude Desktop (verified by answerdesk)",
		"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, out)
	}
	cfg := &oauth2.Config{ClientID: out["client_id"].(string), RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: app.Server.URL + "/oauth/authorize"}}
	b := newBrowser(t, app)
	p := b.signIn(b.get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))), app.Alice.Email, "test-password")
	if p.status != http.StatusOK || !strings.Contains(p.body, `name="decision"`) {
		t.Fatalf("no consent page: %d %.300s", p.status, p.body)
	}
	for _, want := range []string{
		"Registered on 20 November 2026, unverified: it answers to https://claude.example.net",
		"is the application's own choice; answerdesk vouches only for what this line says",
		"registered itself with answerdesk, which has not verified",
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("consent page does not say %q: %.1200s", want, p.body)
		}
	}
}

func TestRefreshScope(t *testing.T) {
	app := newApp(t)
	cfg := publicClient(t, app, "messages:read")
	tok := tokenFor(t, app, cfg, app.Alice.Email)
	if scope, _ := tok.Extra("scope").(string); scope != "messages:read" {
		t.Fatalf("scope = %q", scope)
	}
	ctx := context.Background()
	// x/oauth2 sends no scope when refreshing, so this request is made by hand.
	resp, err := http.PostForm(app.Server.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {tok.RefreshToken}, "client_id": {cfg.ClientID}, "scope": {"messages:read todos:write"}})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || body["error"] != "invalid_scope" {
		t.Errorf("wider scope: %d %v, want 400 invalid_scope", resp.StatusCode, body)
	}
	// Refused before rotating: the refresh token still works.
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err != nil {
		t.Fatalf("the refresh token was spent by a refused request: %v", err)
	}
}
