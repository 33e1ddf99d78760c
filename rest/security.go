package rest

import (
	"crypto/subtle"
	"maps"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/answerdesk/answerdesk"
)

// securityHeaders adds the defensive headers to every response, pages and JSON errors
// alike: no MIME sniffing (a JSON error echoing input must never be read as HTML), no
// framing (clickjacking of the sign-in, consent and keys pages), no Referer leaving the
// site (URLs may carry codes or cursors), and over https HSTS so a browser never tries
// plain http again. Pages that need a stricter Content-Security-Policy set their own,
// which replaces this one.
func (s *Server) securityHeaders(next http.Handler) http.Handler {
	hsts := strings.HasPrefix(s.BaseURL, "https://")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Assigned rather than Set: the keys are canonical and the values shared, which
		// saves an allocation per header on every request. Nothing appends to or edits a
		// value in place (Set and Add replace or copy a one-element slice).
		h := w.Header()
		h["X-Content-Type-Options"] = headerNosniff
		h["X-Frame-Options"] = headerDeny
		h["Content-Security-Policy"] = headerFrameAncestors
		h["Referrer-Policy"] = headerNoReferrer
		if hsts {
			h["Strict-Transport-Security"] = headerHSTS
		}
		next.ServeHTTP(w, r)
	})
}

// The values of securityHeaders, shared by every response.
var (
	headerNosniff        = []string{"nosniff"}
	headerDeny           = []string{"DENY"}
	headerFrameAncestors = []string{"frame-ancestors 'none'"}
	headerNoReferrer     = []string{"no-referrer"}
	headerHSTS           = []string{"max-age=63072000"}
)

// MetricsConfig protects /metrics, which shows traffic by route, latencies and the
// process's memory: useful to an attacker sizing a flood, so never open to anyone.
type MetricsConfig struct {
	// Token, when set, is the bearer /metrics requires (compared in constant time).
	Token string
	// Separate is true when the metrics are served on a listener of their own
	// (--metrics-addr, see MetricsHandler): the main listener then has no /metrics.
	Separate bool
}

// metrics serves /metrics on the main listener: with a token to the bearer of that token,
// on a separate listener not at all, and otherwise to loopback clients only. The client
// address is resolved as the rate limiter resolves it (honouring --trusted-proxy), and a
// request forwarded by a proxy that is not trusted is not loopback, though its peer is:
// otherwise a reverse proxy on the same machine would hand the metrics to the world.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.MetricsConfig.Separate:
		s.writeErrorObject(w, http.StatusNotFound, codeNoRoute, "no route matches "+r.Method+" "+r.URL.Path, "", nil)
	case s.MetricsConfig.Token != "":
		s.MetricsHandler().ServeHTTP(w, r)
	case s.loopbackClient(r):
		s.Metrics.Handler().ServeHTTP(w, r)
	default:
		s.writeErrorObject(w, http.StatusForbidden, "forbidden", "the metrics are served to loopback clients only",
			"Scrape from this machine, or start the server with --metrics-token (then send Authorization: Bearer <token>) or --metrics-addr.", nil)
	}
}

// MetricsHandler serves the Prometheus metrics, behind the bearer token when one is
// configured: what the main listener serves at /metrics with --metrics-token, and what a
// separate --metrics-addr listener serves.
func (s *Server) MetricsHandler() http.Handler {
	if s.Metrics == nil {
		s.Metrics = NewMetrics()
	}
	h := s.Metrics.Handler()
	if s.MetricsConfig.Token == "" {
		return h
	}
	want := []byte(s.MetricsConfig.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok || subtle.ConstantTimeCompare([]byte(token), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			s.writeErrorObject(w, http.StatusUnauthorized, "unauthorized", "the metrics need the metrics bearer token",
				"Send Authorization: Bearer <the --metrics-token value>.", nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackClient reports whether the request comes from this machine: its resolved client
// address is loopback, and it was not forwarded by an untrusted proxy.
func (s *Server) loopbackClient(r *http.Request) bool {
	addr, err := netip.ParseAddr(s.ClientAddress(r))
	if err != nil || !addr.IsLoopback() {
		return false
	}
	xff := r.Header.Get("X-Forwarded-For") != ""
	if !xff && r.Header.Get("Forwarded") == "" && r.Header.Get("X-Real-Ip") == "" {
		return true // not forwarded: the loopback peer is the client
	}
	// Forwarded: only a trusted proxy's X-Forwarded-For (which ClientAddress resolved to
	// loopback above) names the client. A proxy that names it in another header only
	// tells us nothing we read, so the client is taken to be remote.
	return xff && s.trustedPeer(r)
}

// badQueryText is the first parameter (in name order) whose name or a value is not text
// (answerdesk.ValidText: a NUL, or invalid UTF-8), "" when there is none. Nothing the
// service keeps holds such text, and PostgreSQL refuses it even in a lookup (a skill name,
// a search query inside a batch), so each API refuses it as its own bad parameter, after
// authentication and rate limiting, in its own error format.
func badQueryText(r *http.Request) string {
	// Without escapes every decoded name and value is a piece of the raw query: the common
	// case checks it once and allocates nothing.
	raw := r.URL.RawQuery
	if !strings.Contains(raw, "%") && answerdesk.ValidText(raw) {
		return ""
	}
	q := r.URL.Query()
	for _, name := range slices.Sorted(maps.Keys(q)) {
		bad := !answerdesk.ValidText(name)
		for _, v := range q[name] {
			bad = bad || !answerdesk.ValidText(v)
		}
		if bad {
			return strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", `\u0000`), "?")
		}
	}
	return ""
}
