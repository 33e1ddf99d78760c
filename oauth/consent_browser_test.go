package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/browsertest"
	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"
)

// TestConsentInBrowser runs the person's part of an authorization in headless Chromium:
// the sign-in form, the consent page (at phone width too), and Allow, after which the
// browser must really arrive at the client's loopback redirect URI with the code. Chromium
// applies a page's Content-Security-Policy form-action to the redirect that answers a form,
// so this is what catches a policy that would strand the person on the consent page.
func TestConsentInBrowser(t *testing.T) {
	ctx := browsertest.New(t)
	app := newApp(t)

	arrived := make(chan url.Values, 1)
	client := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" {
			arrived <- r.URL.Query()
		}
		_, _ = w.Write([]byte("<!doctype html><title>Connected</title><p id=done>You can close this window."))
	}))
	defer client.Close()
	status, out := register(t, app, map[string]any{"client_name": "Browser Assistant", "redirect_uris": []string{client.URL + "/callback"}, "token_endpoint_auth_method": "none"})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, out)
	}
	cfg := &oauth2.Config{ClientID: out["client_id"].(string), RedirectURL: client.URL + "/callback", Scopes: []string{"messages:read", "todos:write"},
		Endpoint: oauth2.Endpoint{AuthURL: app.Server.URL + "/oauth/authorize", TokenURL: app.Server.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()

	browsertest.Do(t, ctx, "open the authorization URL",
		chromedp.Navigate(cfg.AuthCodeURL("st-browser", oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", app.Server.URL+"/mcp/account"))),
		chromedp.WaitVisible(chromedp.CSS("#email")))
	browsertest.Do(t, ctx, "sign in",
		chromedp.SendKeys(chromedp.CSS("#email"), app.Alice.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), "test-password"),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[name="decision"][value="allow"]`)))
	heading := browsertest.Run(t, ctx, "consent heading", chromedp.Text(chromedp.CSS("h1")))
	if heading != "Allow “Browser Assistant” to use your answerdesk account?" {
		t.Errorf("heading %q", heading)
	}
	browsertest.FitCheck(t, ctx, "consent")

	// Stranded on the consent page, the wait below would last the whole minute of ctx.
	allowCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	browsertest.Do(t, allowCtx, "allow (and arrive at the client's redirect URI)",
		chromedp.Click(chromedp.CSS(`button[name="decision"][value="allow"]`)),
		chromedp.WaitVisible(chromedp.CSS("#done")))
	var q url.Values
	select {
	case q = <-arrived:
	default:
		t.Fatal("the browser did not reach the client's redirect URI")
	}
	if q.Get("state") != "st-browser" || q.Get("iss") != app.Server.URL || q.Get("code") == "" {
		t.Fatalf("callback query %v", q)
	}
	tok, err := cfg.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	if status, _ := bearerStatus(t, app, tok.AccessToken); status != http.StatusOK {
		t.Errorf("the token at /mcp/account: %d", status)
	}
}
