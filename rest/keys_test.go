package rest_test

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
)

// keysBrowser is a signed-in browser on the application keys page.
type keysBrowser struct {
	t      *testing.T
	app    *testapp.App
	client *http.Client
}

var (
	csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	newToken  = regexp.MustCompile(`<code id="new-token">([^<]+)</code>`)
	tokenRow  = regexp.MustCompile(`<tr data-token-id="(\d+)">\s*<td data-label="Name">([^<]*)</td>`)
)

func signedIn(t *testing.T, app *testapp.App, email string) *keysBrowser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &keysBrowser{t: t, app: app, client: &http.Client{Jar: jar}}
	status, body := b.get("/settings/keys")
	if status != http.StatusOK || !strings.Contains(body, `action="/login"`) {
		t.Fatalf("/settings/keys signed out: %d, want the sign-in form", status)
	}
	m := csrfField.FindStringSubmatch(body)
	status, body = b.post("/login", url.Values{"csrf_token": {m[1]}, "email": {email}, "password": {"test-password"}, "return_to": {"/settings/keys"}})
	if status != http.StatusOK || !strings.Contains(body, "<h1>Application keys</h1>") {
		t.Fatalf("after sign-in: %d %.300s", status, body)
	}
	return b
}

func (b *keysBrowser) get(path string) (int, string) {
	b.t.Helper()
	resp, err := b.client.Get(b.app.Server.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (b *keysBrowser) post(path string, form url.Values) (int, string) {
	b.t.Helper()
	resp, err := b.client.PostForm(b.app.Server.URL+path, form)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (b *keysBrowser) csrf() string {
	b.t.Helper()
	_, body := b.get("/settings/keys")
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		b.t.Fatal("no CSRF token on the keys page")
	}
	return m[1]
}

// rows returns the token rows of the page: id → name.
func rows(body string) map[string]string {
	out := map[string]string{}
	for _, m := range tokenRow.FindAllStringSubmatch(body, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}

func TestKeysPage(t *testing.T) {
	app := testapp.New(t)
	alice := signedIn(t, app, app.Alice.Email)

	// A token for the call platform: it hands over recordings and reads nothing; the list
	// says what it may do. A scope it cannot have is refused.
	status, body := alice.post("/settings/keys", url.Values{"csrf_token": {alice.csrf()}, "name": {"Phone system"}, "scope": {"recordings:write"}})
	if m := newToken.FindStringSubmatch(body); status != http.StatusOK || m == nil || !strings.Contains(body, "recordings:write") {
		t.Fatalf("create a recordings:write token: %d, token shown: %v", status, m != nil)
	} else if r := app.Do(t, http.MethodGet, "/api/v2/messages", m[1], nil); r.Status != http.StatusForbidden {
		t.Fatalf("the recordings:write token at /api/v2/messages: %d, want 403", r.Status)
	}
	if status, body := alice.post("/settings/keys", url.Values{"csrf_token": {alice.csrf()}, "name": {"x"}, "scope": {"admin"}}); status != http.StatusUnprocessableEntity || !strings.Contains(body, "Access") {
		t.Fatalf("an unknown scope: %d", status)
	}

	status, body = alice.post("/settings/keys", url.Values{"csrf_token": {alice.csrf()}, "name": {"CRM <sync>"}})
	m := newToken.FindStringSubmatch(body)
	if status != http.StatusOK || m == nil {
		t.Fatalf("create: %d, token shown: %v", status, m != nil)
	}
	plain := m[1]
	if !strings.Contains(body, "CRM &lt;sync&gt;") {
		t.Error("the token name is not shown escaped")
	}
	if r := app.Do(t, http.MethodGet, "/api/v2/messages", plain, nil); r.Status != http.StatusOK {
		t.Fatalf("the new token at /api/v2/messages: %d", r.Status)
	}

	// Post/redirect/get: a reload shows the list without the token and creates nothing.
	_, body = alice.get("/settings/keys")
	if strings.Contains(body, plain) {
		t.Fatal("the token is shown again after creation")
	}
	if n := len(rows(body)); n != 3 { // the fixture's token, the call platform's and this one
		t.Fatalf("%d tokens listed, want 3", n)
	}
	var id string
	for rid, name := range rows(body) {
		if name == "CRM <sync>" {
			id = rid
		}
	}
	if id == "" || !strings.Contains(body, plain[:9]+"…") {
		t.Fatalf("the token is not listed with its prefix: %v", rows(body))
	}

	t.Run("another user can neither see nor revoke it", func(t *testing.T) {
		bob := signedIn(t, app, app.Bob.Email)
		_, body := bob.get("/settings/keys")
		if _, ok := rows(body)[id]; ok || strings.Contains(body, "CRM &lt;sync&gt;") {
			t.Error("Bob sees Alice's token")
		}
		if status, _ := bob.post("/settings/keys/"+id+"/revoke", url.Values{"csrf_token": {bob.csrf()}}); status != http.StatusNotFound {
			t.Errorf("Bob revoking Alice's token: %d, want 404", status)
		}
		if r := app.Do(t, http.MethodGet, "/api/v2/messages", plain, nil); r.Status != http.StatusOK {
			t.Errorf("the token stopped working: %d", r.Status)
		}
	})

	t.Run("an admin sees whose token it is", func(t *testing.T) {
		admin := signedIn(t, app, app.Admin.Email)
		_, body := admin.get("/settings/keys")
		if _, ok := rows(body)[id]; !ok || !strings.Contains(body, `<td data-label="Owner">alice@acme.example</td>`) {
			t.Errorf("admin view: %v", rows(body))
		}
	})

	t.Run("a planted new-token cookie shows nothing", func(t *testing.T) {
		u, _ := url.Parse(app.Server.URL + "/settings/keys")
		alice.client.Jar.SetCookies(u, []*http.Cookie{{Name: "answerdesk_new_token", Value: url.Values{"token": {app.Bob.Token}, "name": {"x"}, "mac": {"00"}}.Encode(), Path: "/settings/keys"}})
		if _, body := alice.get("/settings/keys"); strings.Contains(body, app.Bob.Token) || newToken.MatchString(body) {
			t.Error("the page showed a token from a cookie it did not set")
		}
	})

	t.Run("forms without the CSRF token are refused", func(t *testing.T) {
		if status, _ := alice.post("/settings/keys/"+id+"/revoke", url.Values{}); status != http.StatusForbidden {
			t.Errorf("revoke without CSRF: %d, want 403", status)
		}
		if status, body := alice.post("/settings/keys", url.Values{"name": {"x"}, "csrf_token": {"forged"}}); status != http.StatusForbidden || newToken.MatchString(body) {
			t.Errorf("create with a forged CSRF token: %d", status)
		}
	})

	t.Run("revoke", func(t *testing.T) {
		status, body := alice.post("/settings/keys/"+id+"/revoke", url.Values{"csrf_token": {alice.csrf()}})
		if status != http.StatusOK {
			t.Fatalf("revoke: %d", status)
		}
		if _, ok := rows(body)[id]; ok {
			t.Error("the revoked token is still listed")
		}
		if r := app.Do(t, http.MethodGet, "/api/v2/messages", plain, nil); r.Status != http.StatusUnauthorized {
			t.Errorf("revoked token: %d, want 401", r.Status)
		}
	})

	t.Run("a name that is too long", func(t *testing.T) {
		status, body := alice.post("/settings/keys", url.Values{"csrf_token": {alice.csrf()}, "name": {strings.Repeat("n", 101)}})
		if status != http.StatusUnprocessableEntity || !strings.Contains(body, "at most 100 characters") {
			t.Errorf("got %d", status)
		}
	})

	t.Run("sign out ends the session", func(t *testing.T) {
		alice.post("/logout", url.Values{"csrf_token": {alice.csrf()}})
		if _, body := alice.get("/settings/keys"); !strings.Contains(body, `action="/login"`) {
			t.Error("still signed in after signing out")
		}
	})
}
