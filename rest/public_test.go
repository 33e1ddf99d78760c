package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/ratelimit"
	"github.com/answerdesk/answerdesk/rest"
)

// publicServer serves the fixture site with a public API limit of limit requests a minute.
func publicServer(t *testing.T, limit int, cfg func(*rest.PublicConfig)) (*httptest.Server, *rest.Server) {
	t.Helper()
	site, err := content.Load(os.DirFS("../content/testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 20, 0, time.UTC)
	srv := &rest.Server{Site: site, Logger: quietLogger(), Now: func() time.Time { return now },
		Public: rest.PublicConfig{Limiter: &ratelimit.Memory{Limit: limit, Window: time.Minute}, Limit: limit}}
	if cfg != nil {
		cfg(&srv.Public)
	}
	return serve(t, srv), srv
}

func getJSON(t *testing.T, url string, v any, header ...string) *http.Response {
	t.Helper()
	resp, body := get(t, url, header...)
	if v != nil && resp.StatusCode != http.StatusNotModified {
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: not JSON: %s", url, body)
		}
	}
	return resp
}

func TestPublicCompanyServicesPricing(t *testing.T) {
	ts, _ := publicServer(t, 1000, nil)
	var company map[string]any
	getJSON(t, ts.URL+"/api/v1/company", &company)
	addr, _ := company["mailingAddress"].(map[string]any)
	links, _ := company["links"].(map[string]any)
	if company["name"] != "Testco" || addr["postalCode"] != "97201" || links["pricing"] != ts.URL+"/pricing" || company["sandbox"] != nil {
		t.Fatalf("company %v", company)
	}
	var services struct {
		Services []map[string]string `json:"services"`
	}
	getJSON(t, ts.URL+"/api/v1/services", &services)
	if len(services.Services) != 1 || services.Services[0]["slug"] != "live-answering" || services.Services[0]["markdownUrl"] != ts.URL+"/services/live-answering.md" {
		t.Fatalf("services %v", services)
	}
	var pricing struct {
		BillingCycle string
		Currency     string
		Services     []struct {
			Service string
			Plans   []map[string]any
		}
	}
	getJSON(t, ts.URL+"/api/v1/pricing", &pricing)
	if pricing.BillingCycle != "monthly" || pricing.Currency != "USD" || pricing.Services[0].Plans[0]["price"] != 49.0 || pricing.Services[0].Plans[0]["minutesIncluded"] != 50.0 {
		t.Fatalf("pricing %+v", pricing)
	}
	getJSON(t, ts.URL+"/api/v1/pricing?billingCycle=annual&service=live-answering", &pricing)
	if pricing.BillingCycle != "annual" || pricing.Services[0].Plans[0]["price"] != 44.0 {
		t.Fatalf("annual pricing %+v", pricing)
	}
	for _, tc := range []struct{ path, code string }{
		{"/api/v1/pricing?billingCycle=weekly", "rest_invalid_param"},
		{"/api/v1/pricing?service=nope", "rest_invalid_param"},
		{"/api/v1/company?verbose=1", "rest_invalid_param"},
		{"/api/v1/pricing?billingCycle=monthly&billingCycle=annual", "rest_invalid_param"},
	} {
		var e errorBody
		resp := getJSON(t, ts.URL+tc.path, &e)
		if resp.StatusCode != 400 || e.Code != tc.code || e.Hint == "" || !strings.HasSuffix(e.DocumentationURL, "/docs/errors#"+tc.code) {
			t.Errorf("%s: %d %+v", tc.path, resp.StatusCode, e)
		}
	}
	var e errorBody
	if resp := getJSON(t, ts.URL+"/api/v1/nothing", &e); resp.StatusCode != 404 || e.Code != "rest_no_route" {
		t.Fatalf("unknown path: %d %+v", resp.StatusCode, e)
	}
}

func TestPublicCachingAndIdempotencyKey(t *testing.T) {
	ts, _ := publicServer(t, 1000, nil)
	resp, _ := get(t, ts.URL+"/api/v1/company", "Idempotency-Key", "abc-123")
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Cache-Control") != "public, max-age=300" || resp.Header.Get("Idempotency-Key") != "abc-123" {
		t.Fatalf("headers %v", resp.Header)
	}
	resp, body := get(t, ts.URL+"/api/v1/company", "If-None-Match", etag)
	if resp.StatusCode != http.StatusNotModified || body != "" {
		t.Fatalf("If-None-Match: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, ts.URL+"/api/v1/company", "If-None-Match", `"other"`); resp.StatusCode != 200 {
		t.Fatalf("a stale ETag: %d", resp.StatusCode)
	}
}

func TestPublicRateLimit(t *testing.T) {
	ts, _ := publicServer(t, 3, nil)
	if resp, _ := get(t, ts.URL+"/api/v1/openapi.json"); resp.Header.Get("X-RateLimit-Remaining") != "3" {
		t.Fatalf("openapi.json: %d %v", resp.StatusCode, resp.Header) // shown, not spent: the loop below sees 3 left
	}
	for i := 1; i <= 3; i++ {
		resp, _ := get(t, ts.URL+"/api/v1/services")
		if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != string(rune('0'+3-i)) ||
			resp.Header.Get("RateLimit-Policy") != `"default";q=3;w=60` || resp.Header.Get("RateLimit") != `"default";r=`+string(rune('0'+3-i))+`;t=40` ||
			resp.Header.Get("X-RateLimit-Limit") != "3" || resp.Header.Get("X-RateLimit-Reset") != "40" {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, resp.Header)
		}
	}
	var e errorBody
	resp := getJSON(t, ts.URL+"/api/v1/services", &e)
	if resp.StatusCode != 429 || e.Code != "rate_limited" || resp.Header.Get("Retry-After") != "40" {
		t.Fatalf("over the limit: %d %+v %v", resp.StatusCode, e, resp.Header)
	}
	// The OpenAPI document is served over the limit too, spending nothing, and carries the
	// headers like every public response (the Public API docs page).
	for range 2 {
		resp, _ := get(t, ts.URL+"/api/v1/openapi.json")
		if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("RateLimit") != `"default";r=0;t=40` {
			t.Fatalf("openapi.json over the limit: %d %v", resp.StatusCode, resp.Header)
		}
	}
}

func TestPublicTrustedProxy(t *testing.T) {
	ts, _ := publicServer(t, 1, func(c *rest.PublicConfig) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	// Behind a trusted proxy each forwarded client has its own allowance.
	for _, client := range []string{"203.0.113.7", "203.0.113.8"} {
		if resp, _ := get(t, ts.URL+"/api/v1/company", "X-Forwarded-For", client); resp.StatusCode != 200 {
			t.Fatalf("client %s: %d", client, resp.StatusCode)
		}
	}
	if resp, _ := get(t, ts.URL+"/api/v1/company", "X-Forwarded-For", "203.0.113.7"); resp.StatusCode != 429 {
		t.Fatalf("the same client again: %d", resp.StatusCode)
	}
}

func TestPublicDeprecationHeaders(t *testing.T) {
	dep := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	ts, _ := publicServer(t, 100, func(c *rest.PublicConfig) { c.DeprecatedAt, c.SunsetAt = dep, dep.AddDate(1, 0, 0) })
	resp, _ := get(t, ts.URL+"/api/v1/company")
	if resp.Header.Get("Deprecation") != "@1798761600" || resp.Header.Get("Sunset") != "Sat, 01 Jan 2028 00:00:00 GMT" ||
		!strings.Contains(resp.Header.Get("Link"), `rel="deprecation"`) {
		t.Fatalf("headers %v", resp.Header)
	}
}

// The public rate limit counts an IPv6 client by its /64: a client
// holding a /64 cannot take a fresh allowance per address.
func TestPublicRateLimitIPv6(t *testing.T) {
	ts, _ := publicServer(t, 60, func(c *rest.PublicConfig) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	tests := []struct {
		name     string
		client   func(i int) string
		n        int
		allowed  int
		rejected int
	}{
		{"80_addresses_of_one_64_share_one_allowance", func(i int) string { return fmt.Sprintf("2001:db8:1:2::%x", i+1) }, 80, 60, 20},
		{"another_64_has_its_own_allowance", func(i int) string { return fmt.Sprintf("2001:db8:1:3::%x", i+1) }, 1, 1, 0},
		{"ipv4_clients_count_per_address", func(i int) string { return fmt.Sprintf("203.0.113.%d", i+1) }, 70, 70, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allowed, rejected := 0, 0
			for i := range tt.n {
				resp, _ := get(t, ts.URL+"/api/v1/company", "X-Forwarded-For", tt.client(i))
				switch resp.StatusCode {
				case 200:
					allowed++
				case 429:
					rejected++
				default:
					t.Fatalf("request %d: status %d", i, resp.StatusCode)
				}
			}
			if allowed != tt.allowed || rejected != tt.rejected {
				t.Fatalf("allowed %d, rejected %d; want %d and %d", allowed, rejected, tt.allowed, tt.rejected)
			}
		})
	}
}
