package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"golang.org/x/oauth2"
)

// TestNULIsRefused checks that the OAuth endpoints refuse the NUL character in what they
// look up or keep, on every engine, instead of a 500 where PostgreSQL refuses it: a
// registered client_name (400 invalid_client_metadata), a token or revocation parameter
// (400 invalid_request), and a sign-in address (asked again, 422, nothing counted).
func TestNULIsRefused(t *testing.T) {
	for _, engine := range testdb.Engines() {
		t.Run(engine, func(t *testing.T) {
			app := testapp.NewOn(t, engine)
			status, body := register(t, app, map[string]any{"redirect_uris": []string{"http://127.0.0.1:7777/cb"},
				"client_name": "Helper\x00", "token_endpoint_auth_method": "none"})
			if status != 400 || body["error"] != "invalid_client_metadata" {
				t.Errorf("register: %d %v, want 400 invalid_client_metadata", status, body)
			}
			for _, path := range []string{"/oauth/token", "/oauth/revoke"} {
				resp, err := http.PostForm(app.Server.URL+path, url.Values{"grant_type": {"authorization_code"},
					"code": {"aac_\x00"}, "client_id": {"adc_\x00"}, "token": {"art_\x00"}, "code_verifier": {strings.Repeat("a", 43)}})
				if err != nil {
					t.Fatal(err)
				}
				var e struct {
					Error            string `json:"error"`
					ErrorDescription string `json:"error_description"`
				}
				err = json.NewDecoder(resp.Body).Decode(&e)
				resp.Body.Close()
				// invalid_request names the text: a bogus code or client alone is invalid_grant
				// or invalid_client, so this fails without the rule on either engine.
				if err != nil || resp.StatusCode != 400 || e.Error != "invalid_request" || !strings.Contains(e.ErrorDescription, "NUL") {
					t.Errorf("%s: %d %+v (%v), want 400 invalid_request naming the NUL", path, resp.StatusCode, e, err)
				}
			}
			b := newBrowser(t, app)
			if p := b.signIn(b.get("/login"), "alice\x00@example.com", "test-password"); p.status != http.StatusUnprocessableEntity {
				t.Errorf("sign-in with a NUL in the address: %d, want 422: %.300s", p.status, p.body)
			}
			// The consent form's answer, posted with a client_id holding a NUL: an unknown client.
			cfg := publicClient(t, app, "messages:read")
			p := b.get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
			if p.url.Path == "/login" {
				p = b.signIn(p, app.Alice.Email, "test-password")
			}
			form := p.hidden()
			form.Set("client_id", cfg.ClientID+"\x00")
			form.Set("decision", "allow")
			if p := b.post("/oauth/authorize", form); p.status != http.StatusBadRequest || !strings.Contains(p.body, "unknown client_id") {
				t.Errorf("consent answer for a client_id holding NUL: %d, want 400 naming an unknown client_id: %.300s", p.status, p.body)
			}
		})
	}
}
