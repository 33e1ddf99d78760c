package oauth_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"golang.org/x/oauth2"
)

// browser is a person at a browser: a cookie jar, and redirects followed only on the
// service itself, so the answer to a client's redirect URI is caught, not fetched.
type browser struct {
	t      testing.TB
	app    *testapp.App
	client *http.Client
}

func newBrowser(t testing.TB, app *testapp.App) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse(app.Server.URL)
	return &browser{t: t, app: app, client: &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != base.Host {
			return http.ErrUseLastResponse
		}
		return nil
	}}}
}

type page struct {
	status int
	url    *url.URL // after redirects on the service
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, url: resp.Request.URL, header: resp.Header, body: string(body)}
}

func (b *browser) get(u string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.abs(u), nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

func (b *browser) post(u string, form url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.abs(u), strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

func (b *browser) abs(u string) string {
	if strings.HasPrefix(u, "/") {
		return b.app.Server.URL + u
	}
	return u
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// hidden returns the hidden fields of the page's first form.
func (p page) hidden() url.Values {
	v := url.Values{}
	body := p.body
	if end := strings.Index(body, "</form>"); end >= 0 {
		body = body[:end]
	}
	for _, m := range hiddenInput.FindAllStringSubmatch(body, -1) {
		v.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return v
}

// signIn signs in with the sign-in form at p, returning the page it leads to.
func (b *browser) signIn(p page, email, password string) page {
	b.t.Helper()
	if p.url.Path != "/login" {
		b.t.Fatalf("expected the sign-in page, got %s (%d): %.300s", p.url, p.status, p.body)
	}
	form := p.hidden()
	form.Set("email", email)
	form.Set("password", password)
	return b.post("/login", form)
}

// decide answers the consent page p.
func (b *browser) decide(p page, decision string) page {
	b.t.Helper()
	if p.url.Path != "/oauth/authorize" || p.status != http.StatusOK || !strings.Contains(p.body, `name="decision"`) {
		b.t.Fatalf("expected the consent page, got %s (%d): %.500s", p.url, p.status, p.body)
	}
	form := p.hidden()
	form.Set("decision", decision)
	return b.post("/oauth/authorize", form)
}

// callback returns the query a redirect to the client carried.
func callback(t testing.TB, p page, redirectURI string) url.Values {
	t.Helper()
	loc := p.header.Get("Location")
	if (p.status != http.StatusFound && p.status != http.StatusSeeOther) || !strings.HasPrefix(loc, redirectURI) {
		t.Fatalf("expected a redirect to %s, got %d Location %q: %.300s", redirectURI, p.status, loc, p.body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// register registers a client by RFC 7591 and returns its response.
func register(t testing.TB, app *testapp.App, metadata map[string]any) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(metadata)
	resp, err := http.Post(app.Server.URL+"/oauth/register", "application/json", strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// publicClient registers a public client (token_endpoint_auth_method none) with one
// loopback redirect URI and returns its golang.org/x/oauth2 configuration.
func publicClient(t testing.TB, app *testapp.App, scopes ...string) *oauth2.Config {
	t.Helper()
	redirect := "http://127.0.0.1:53682/callback"
	status, out := register(t, app, map[string]any{
		"client_name": "Test Assistant", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
	})
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, out)
	}
	return &oauth2.Config{
		ClientID: out["client_id"].(string), RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: app.Server.URL + "/oauth/authorize", TokenURL: app.Server.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams},
	}
}

// authorize runs the browser part of the flow (sign in if needed, allow) and returns the
// code; verifier is the PKCE verifier the URL's challenge was made from.
func authorize(t testing.TB, b *browser, cfg *oauth2.Config, verifier string, email string, opts ...oauth2.AuthCodeOption) string {
	t.Helper()
	opts = append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", b.app.Server.URL+"/mcp/account")}, opts...)
	p := b.get(cfg.AuthCodeURL("state-123", opts...))
	if p.url.Path == "/login" {
		p = b.signIn(p, email, "test-password")
	}
	q := callback(t, b.decide(p, "allow"), cfg.RedirectURL)
	if q.Get("state") != "state-123" || q.Get("iss") != b.app.Server.URL || q.Get("code") == "" {
		t.Fatalf("callback = %v, want code, state state-123 and iss %s", q, b.app.Server.URL)
	}
	return q.Get("code")
}

// tokenFor runs the whole flow and exchanges the code.
func tokenFor(t testing.TB, app *testapp.App, cfg *oauth2.Config, email string) *oauth2.Token {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	code := authorize(t, newBrowser(t, app), cfg, verifier, email)
	tok, err := cfg.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return tok
}

// bearerStatus calls the account MCP endpoint with a bearer token and returns the status
// and the WWW-Authenticate header.
func bearerStatus(t testing.TB, app *testapp.App, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, app.Server.URL+"/mcp/account",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

func loopbackPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}
