package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"golang.org/x/oauth2"
)

func TestRegistration(t *testing.T) {
	app := newApp(t)
	cases := []struct {
		name     string
		metadata map[string]any
		status   int
		errCode  string
	}{
		{"public client", map[string]any{"client_name": "Claude", "redirect_uris": []string{"http://localhost:6274/oauth/callback"}, "token_endpoint_auth_method": "none"}, 201, ""},
		{"https redirect", map[string]any{"redirect_uris": []string{"https://claude.ai/api/mcp/auth_callback"}, "token_endpoint_auth_method": "none"}, 201, ""},
		{"IPv6 loopback", map[string]any{"redirect_uris": []string{"http://[::1]:8000/cb"}, "token_endpoint_auth_method": "none"}, 201, ""},
		{"no redirect URIs", map[string]any{"client_name": "x"}, 400, "invalid_redirect_uri"},
		{"http on a public host", map[string]any{"redirect_uris": []string{"http://example.com/cb"}}, 400, "invalid_redirect_uri"},
		{"custom scheme", map[string]any{"redirect_uris": []string{"myapp://cb"}}, 400, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://example.com/cb#x"}}, 400, "invalid_redirect_uri"},
		{"implicit grant", map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "grant_types": []string{"implicit"}}, 400, "invalid_client_metadata"},
		{"unknown auth method", map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, 400, "invalid_client_metadata"},
		{"unknown scope", map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "scope": "messages:read everything"}, 400, "invalid_client_metadata"},
		{"credentials before the host", map[string]any{"client_name": "Claude", "redirect_uris": []string{"https://claude.ai@evil.example/api/mcp/auth_callback"}}, 400, "invalid_redirect_uri"},
		{"text-direction override in the name", map[string]any{"client_name": "a\u202eelpmaxe.live", "redirect_uris": []string{"https://example.com/cb"}}, 400, "invalid_client_metadata"},
		{"line break in the name", map[string]any{"client_name": "Claude\nVerified by answerdesk", "redirect_uris": []string{"https://example.com/cb"}}, 400, "invalid_client_metadata"},
		{"homoglyph host", map[string]any{"client_name": "Claude", "redirect_uris": []string{"https://сlaude.ai/api/mcp/auth_callback"}}, 400, "invalid_redirect_uri"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, out := register(t, app, tc.metadata)
			if status != tc.status || (tc.errCode != "" && out["error"] != tc.errCode) {
				t.Fatalf("got %d %v, want %d %s", status, out, tc.status, tc.errCode)
			}
			if status == 201 {
				if id, _ := out["client_id"].(string); !strings.HasPrefix(id, "adc_") {
					t.Errorf("client_id = %v", out["client_id"])
				}
				if _, ok := out["client_secret"]; ok {
					t.Error("a public client got a secret")
				}
			}
		})
	}

	t.Run("not JSON", func(t *testing.T) {
		resp, err := http.Post(app.Server.URL+"/oauth/register", "text/plain", strings.NewReader("hello"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d", resp.StatusCode)
		}
	})

	t.Run("confidential client authenticates with HTTP Basic", func(t *testing.T) {
		redirect := "http://127.0.0.1:53682/callback"
		status, out := register(t, app, map[string]any{"client_name": "Server App", "redirect_uris": []string{redirect}})
		if status != 201 || out["token_endpoint_auth_method"] != "client_secret_basic" {
			t.Fatalf("register: %d %v", status, out)
		}
		secret, _ := out["client_secret"].(string)
		cfg := &oauth2.Config{ClientID: out["client_id"].(string), ClientSecret: secret, RedirectURL: redirect,
			Endpoint: oauth2.Endpoint{AuthURL: app.Server.URL + "/oauth/authorize", TokenURL: app.Server.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader}}
		verifier := oauth2.GenerateVerifier()
		code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)
		inForm := *cfg
		inForm.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		_, err := inForm.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
		assertOAuthError(t, err, "invalid_client") // registered for Basic, so not in the form
		wrong := *cfg
		wrong.ClientSecret = "acs_wrong"
		_, err = wrong.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
		assertOAuthError(t, err, "invalid_client")
		// The wrong secret never reached the code, so it is still good.
		if _, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier)); err != nil {
			t.Fatalf("exchange with the secret: %v", err)
		}
	})
}

// metadataPublisher serves a client ID metadata document over TLS, counting fetches.
type metadataPublisher struct {
	srv     *httptest.Server
	fetches atomic.Int32
	doc     atomic.Value // map[string]any
	status  atomic.Int32 // 0: 200
}

func newMetadataPublisher(t *testing.T) *metadataPublisher {
	p := &metadataPublisher{}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		if st := p.status.Load(); st != 0 {
			w.WriteHeader(int(st))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=600")
		_ = json.NewEncoder(w).Encode(p.doc.Load())
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *metadataPublisher) clientID() string { return p.srv.URL + "/oauth/client.json" }

func TestClientIDMetadataDocuments(t *testing.T) {
	app := newApp(t)
	pub := newMetadataPublisher(t)
	app.OAuth.HTTPClient = pub.srv.Client() // trusts the test certificate; loopback allowed
	redirect := "http://127.0.0.1:53682/callback"
	pub.doc.Store(map[string]any{"client_id": pub.clientID(), "client_name": "Metadata Assistant", "redirect_uris": []string{redirect}})
	cfg := &oauth2.Config{ClientID: pub.clientID(), RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: app.Server.URL + "/oauth/authorize", TokenURL: app.Server.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}

	t.Run("an https client_id is fetched, checked, and cached", func(t *testing.T) {
		b := newBrowser(t, app)
		verifier := oauth2.GenerateVerifier()
		p := b.get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
		p = b.signIn(p, app.Alice.Email, "test-password")
		if !strings.Contains(p.body, "Metadata Assistant") || !strings.Contains(p.body, "Published by <strong>127.0.0.1</strong>") ||
			!strings.Contains(p.body, "From 127.0.0.1 (its client ID metadata document is published there)") {
			t.Fatalf("consent page does not name the client and its URL: %.600s", p.body)
		}
		q := callback(t, b.decide(p, "allow"), redirect)
		tok, err := cfg.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusOK {
			t.Errorf("token: %d", status)
		}
		if n := pub.fetches.Load(); n != 1 {
			t.Errorf("fetched %d times, want once (cached for max-age)", n)
		}
		app.Clock.Advance(11 * time.Minute)
		defer app.Clock.Set(testapp.Start)
		b.get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
		if n := pub.fetches.Load(); n != 2 {
			t.Errorf("fetched %d times after max-age, want 2", n)
		}
	})

	t.Run("a publisher that is down keeps the cached copy; one that says 404 does not", func(t *testing.T) {
		defer pub.status.Store(0)
		defer app.Clock.Set(testapp.Start)
		pub.status.Store(http.StatusServiceUnavailable)
		app.Clock.Advance(25 * time.Minute) // past the 10-minute max-age of the last fetch
		if p := newBrowser(t, app).get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))); p.url.Path != "/login" {
			t.Errorf("503 from the publisher: %d %s, want the cached client (sign-in)", p.status, p.url)
		}
		pub.status.Store(http.StatusNotFound)
		app.Clock.Advance(10 * time.Minute)
		if p := newBrowser(t, app).get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))); p.status != http.StatusBadRequest {
			t.Errorf("404 from the publisher: %d, want the client refused", p.status)
		}
	})

	t.Run("a document sending the answer to another host is flagged", func(t *testing.T) {
		other := pub.srv.URL + "/elsewhere.json"
		pub.doc.Store(map[string]any{"client_id": other, "client_name": "Elsewhere", "redirect_uris": []string{"https://evil.example/cb"}})
		defer pub.doc.Store(map[string]any{"client_id": pub.clientID(), "client_name": "Metadata Assistant", "redirect_uris": []string{redirect}})
		c := *cfg
		c.ClientID, c.RedirectURL = other, "https://evil.example/cb"
		b := newBrowser(t, app)
		p := b.signIn(b.get(c.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))), app.Alice.Email, "test-password")
		if !strings.Contains(p.body, "Warning: this application sends your answer to <strong>https://evil.example</strong>") {
			t.Errorf("no warning: %.900s", p.body)
		}
	})

	t.Run("dot segments in a client_id URL are refused", func(t *testing.T) {
		c := *cfg
		c.ClientID = pub.srv.URL + "/a/../oauth/client.json"
		if p := newBrowser(t, app).get(c.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))); p.status != http.StatusBadRequest {
			t.Errorf("got %d", p.status)
		}
	})

	t.Run("a redirect URI the document does not list is refused", func(t *testing.T) {
		other := *cfg
		other.RedirectURL = "https://evil.example/callback"
		p := newBrowser(t, app).get(other.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if p.status != http.StatusBadRequest || p.header.Get("Location") != "" {
			t.Errorf("got %d Location %q", p.status, p.header.Get("Location"))
		}
	})

	t.Run("a document whose client_id is not its URL is refused", func(t *testing.T) {
		bad := pub.srv.URL + "/other.json"
		c := *cfg
		c.ClientID = bad // the publisher answers every path with the document for clientID()
		p := newBrowser(t, app).get(c.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "not registered") {
			t.Errorf("got %d: %.300s", p.status, p.body)
		}
	})

	t.Run("plain http client_id URLs are not documents", func(t *testing.T) {
		c := *cfg
		c.ClientID = strings.Replace(pub.clientID(), "https://", "http://", 1)
		p := newBrowser(t, app).get(c.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		if p.status != http.StatusBadRequest {
			t.Errorf("got %d", p.status)
		}
	})
}
