package oauth

import (
	"net/http/httptest"
	"testing"
)

func TestSafeReturn(t *testing.T) {
	for to, want := range map[string]string{
		"":                                  "/settings/keys",
		"/settings/keys":                    "/settings/keys",
		"/oauth/authorize?client_id=x&s=1":  "/oauth/authorize?client_id=x&s=1",
		"https://evil.example/":             "/settings/keys",
		"//evil.example/":                   "/settings/keys",
		"/\\evil.example":                   "/settings/keys",
		"/\t/evil.example":                  "/settings/keys",
		"/\n/evil.example":                  "/settings/keys",
		"/oauth/authorize/../../evil":       "/settings/keys",
		"/docs/anything":                    "/settings/keys",
		"javascript:alert(1)":               "/settings/keys",
		"/oauth/authorize?x=\x7f":           "/settings/keys",
		"/settings/keys?return_to=//evil.x": "/settings/keys?return_to=//evil.x", // a query is inert
	} {
		if got := safeReturn(to); got != want {
			t.Errorf("safeReturn(%q) = %q, want %q", to, got, want)
		}
	}
}

// Over https the cookies take the __Host- prefix, which only a secure response of this
// very host can set: a sibling subdomain cannot plant a session or a sign-in CSRF token.
func TestCookieNames(t *testing.T) {
	for issuer, want := range map[string]string{"https://answerdesk.example": "__Host-answerdesk_session", "http://localhost:8080": "answerdesk_session"} {
		s := &Server{Issuer: issuer}
		w := httptest.NewRecorder()
		s.setCookie(w, sessionCookie, "v", 3600)
		c := w.Result().Cookies()[0]
		if c.Name != want || c.Path != "/" || !c.HttpOnly || c.Secure != (issuer[:5] == "https") {
			t.Errorf("%s: cookie %+v, want %s", issuer, c, want)
		}
	}
}

func TestClientAddressIPv6Prefix(t *testing.T) {
	s := &Server{}
	for remote, want := range map[string]string{
		"203.0.113.7:5000":            "203.0.113.7",
		"[2001:db8:1:2:3:4:5:6]:5000": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:5000": "2001:db8:1:2::/64",
		"[::ffff:203.0.113.7]:5000":   "203.0.113.7",
	} {
		r := httptest.NewRequest("GET", "/login", nil)
		r.RemoteAddr = remote
		if got := s.clientAddress(r); got != want {
			t.Errorf("%s: %q, want %q", remote, got, want)
		}
	}
}
