package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/rest"
)

// Every response, site pages and JSON errors alike, carries the defensive headers; HSTS
// only when the base URL is https.
func TestDefensiveHeaders(t *testing.T) {
	ts, _ := publicServer(t, 100, nil)
	want := map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "frame-ancestors 'none'",
		"Referrer-Policy":         "no-referrer",
	}
	tests := []struct{ name, path string }{
		{"site_page", "/pricing"},
		{"docs_page", "/docs/errors"},
		{"json_error_no_route", "/api/v1/nope"},
		{"json_error_bad_param", "/api/v1/pricing?billingCycle=weekly"},
		{"public_api", "/api/v1/company"},
		{"health", "/healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := get(t, ts.URL+tt.path)
			for k, v := range want {
				got := resp.Header.Get(k)
				if k == "Content-Security-Policy" && got == rest.SitePageCSP {
					continue // pages for people add to it, and keep frame-ancestors
				}
				if got != v {
					t.Errorf("%s: %s = %q, want %q", tt.path, k, got, v)
				}
			}
			if h := resp.Header.Get("Strict-Transport-Security"); h != "" {
				t.Errorf("HSTS over a plain http base URL: %q", h)
			}
		})
	}
	t.Run("hsts_when_the_base_url_is_https", func(t *testing.T) {
		srv := &rest.Server{BaseURL: "https://answerdesk.example", Logger: quietLogger()}
		ts := httptest.NewServer(srv.Handler())
		defer ts.Close()
		resp, _ := get(t, ts.URL+"/nope")
		if h := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(h, "max-age=") {
			t.Fatalf("Strict-Transport-Security %q", h)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("headers %v", resp.Header)
		}
	})
}

// /metrics is not open to anyone: loopback only by default, the
// bearer of --metrics-token when one is set, nowhere on the main listener with
// --metrics-addr. /healthz and /readyz stay open.
func TestMetricsProtection(t *testing.T) {
	tests := []struct {
		name    string
		cfg     rest.MetricsConfig
		proxies []string
		header  []string
		status  int
		code    string
	}{
		{"loopback_client_by_default", rest.MetricsConfig{}, nil, nil, 200, ""},
		{"forwarded_by_an_untrusted_local_proxy", rest.MetricsConfig{}, nil, []string{"X-Forwarded-For", "203.0.113.9"}, 403, "forbidden"},
		{"forwarded_by_a_trusted_proxy_for_a_remote_client", rest.MetricsConfig{}, []string{"127.0.0.0/8"}, []string{"X-Forwarded-For", "203.0.113.9"}, 403, "forbidden"},
		{"ipv6_remote_behind_a_trusted_proxy", rest.MetricsConfig{}, []string{"127.0.0.0/8"}, []string{"X-Forwarded-For", "2001:db8::1"}, 403, "forbidden"},
		{"trusted_proxy_naming_the_client_in_x_real_ip", rest.MetricsConfig{}, []string{"127.0.0.0/8"}, []string{"X-Real-Ip", "203.0.113.9"}, 403, "forbidden"},
		{"trusted_proxy_naming_the_client_in_forwarded", rest.MetricsConfig{}, []string{"127.0.0.0/8"}, []string{"Forwarded", "for=203.0.113.9"}, 403, "forbidden"},
		{"token_missing", rest.MetricsConfig{Token: "m3tr1cs-s3cret"}, nil, nil, 401, "unauthorized"},
		{"token_wrong", rest.MetricsConfig{Token: "m3tr1cs-s3cret"}, nil, []string{"Authorization", "Bearer m3tr1cs-s3creT"}, 401, "unauthorized"},
		{"token_right", rest.MetricsConfig{Token: "m3tr1cs-s3cret"}, nil, []string{"Authorization", "Bearer m3tr1cs-s3cret"}, 200, ""},
		{"token_right_from_a_remote_client", rest.MetricsConfig{Token: "m3tr1cs-s3cret"}, []string{"127.0.0.0/8"}, []string{"Authorization", "Bearer m3tr1cs-s3cret", "X-Forwarded-For", "203.0.113.9"}, 200, ""},
		{"separate_listener_main_has_none", rest.MetricsConfig{Separate: true}, nil, nil, 404, "rest_no_route"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &rest.Server{Logger: quietLogger(), MetricsConfig: tt.cfg}
			for _, p := range tt.proxies {
				srv.Public.TrustedProxies = append(srv.Public.TrustedProxies, netip.MustParsePrefix(p))
			}
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			resp, body := get(t, ts.URL+"/metrics", tt.header...)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.status == 200 {
				if !strings.Contains(body, "go_goroutines") {
					t.Fatalf("no metrics: %s", body)
				}
				return
			}
			var e errorBody
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Code != tt.code {
				t.Fatalf("error %+v (%v): %s", e, err, body)
			}
			if strings.Contains(body, "go_goroutines") {
				t.Fatal("metrics leaked in a refusal")
			}
			for _, p := range []string{"/healthz", "/readyz"} {
				if resp, _ := get(t, ts.URL+p, tt.header...); resp.StatusCode != 200 {
					t.Fatalf("%s: %d", p, resp.StatusCode)
				}
			}
		})
	}
	t.Run("separate_listener_serves_them", func(t *testing.T) {
		srv := &rest.Server{Logger: quietLogger(), MetricsConfig: rest.MetricsConfig{Separate: true}}
		main := httptest.NewServer(srv.Handler())
		defer main.Close()
		get(t, main.URL+"/healthz")
		side := httptest.NewServer(srv.MetricsHandler())
		defer side.Close()
		resp, body := get(t, side.URL+"/metrics")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `answerdesk_http_requests_total{method="GET",route="/healthz",status="200"} 1`) {
			t.Fatalf("separate listener: %d %s", resp.StatusCode, body)
		}
	})
}

// TestNULInURLIsRefused checks that a path or query parameter holding the NUL character
// (%00) is refused before any lookup, on every engine: PostgreSQL refuses a NUL even in a
// lookup, so a batch job id, an OAuth client_id, an account number or a filter holding
// one was a 500 there.
func TestNULInURLIsRefused(t *testing.T) {
	for _, engine := range testdb.Engines() {
		t.Run(engine, func(t *testing.T) {
			app := testapp.NewOn(t, engine)
			cases := []struct {
				name, path, token string
				status            int
				code, field       string
			}{
				// A route's parameter names nothing: the operation's not-found.
				{"path segment", "/api/v2/accounts/10%0001", app.Admin.Token, 404, "not_found", ""},
				{"message uuid", "/api/v2/messages/a%00b", app.Alice.Token, 404, "not_found", ""},
				{"filter", "/api/v2/call-recordings?skill_name=a%00b", app.Alice.Token, 422, "invalid_parameter", "skill_name"},
				{"batch job id", "/api/v1/batch/jobs/job_%00", "", 404, "rest_no_route", ""},
				// Checked after authentication: no token is still 401.
				{"filter without a token", "/api/v2/call-recordings?skill_name=a%00b", "", 401, "unauthorized", ""},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					var fields []string
					if c.field != "" {
						fields = append(fields, c.field)
					}
					wantError(t, app.Do(t, "GET", c.path, c.token, nil), c.status, c.code, fields...)
				})
			}
			// A path value escaped beyond what Go escapes (%40) reaches chi as sent and the
			// handler unescaped: the NUL behind it is checked too.
			wantError(t, app.Do(t, "DELETE", "/api/v2/accounts/1001/email-blacklist/a%40b%00", app.Admin.Token, nil), 404, "not_found")
			// OAuth answers in its own format: an unknown client, never a 500.
			r := app.Do(t, "GET", "/oauth/authorize?response_type=code&client_id=a%00", "", nil)
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "unknown client_id") {
				t.Errorf("oauth client_id with NUL: %d %s", r.Status, r.Body)
			}
		})
	}
}
