package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an initialize request with the given Host (when not empty) and Origin.
func post(t *testing.T, s *served, host, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := s.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestHostAndOrigin checks the DNS-rebinding protection: the Host must be the base URL's,
// loopback, or an allowed extra host; an Origin must be the base URL's or loopback.
func TestHostAndOrigin(t *testing.T) {
	s := serve(t, "public", func(c *Config) {
		c.BaseURL = "https://answerdesk.example"
		c.AllowedHosts = []string{"internal.lan"}
	})
	for _, c := range []struct {
		name, host, origin string
		want               int
	}{
		{"loopback_host_no_origin", "", "", http.StatusOK},
		{"base_url_host_on_a_loopback_listener", "answerdesk.example", "", http.StatusOK},
		{"base_url_host_with_port_and_case", "AnswerDesk.example:443", "", http.StatusOK},
		{"extra_allowed_host", "internal.lan:8080", "", http.StatusOK},
		{"localhost_host", "localhost:8080", "", http.StatusOK},
		{"foreign_host", "evil.example", "", http.StatusForbidden},
		{"rebinding_host_with_loopback_port", "evil.example:8080", "", http.StatusForbidden},
		{"base_url_origin", "answerdesk.example", "https://answerdesk.example", http.StatusOK},
		{"loopback_origin", "", "http://localhost:6274", http.StatusOK},
		{"foreign_origin", "answerdesk.example", "https://evil.example", http.StatusForbidden},
		{"foreign_origin_on_loopback", "", "http://evil.example:8080", http.StatusForbidden},
		{"base_host_with_other_scheme", "answerdesk.example", "http://answerdesk.example", http.StatusForbidden},
		{"base_host_with_other_port", "answerdesk.example", "https://answerdesk.example:8443", http.StatusForbidden},
		{"null_origin", "", "null", http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := post(t, s, c.host, c.origin)
			if status != c.want {
				t.Fatalf("status %d, want %d: %s", status, c.want, body)
			}
			if status == http.StatusForbidden && !strings.Contains(body, `"jsonrpc":"2.0"`) {
				t.Errorf("403 body is not a JSON-RPC error: %s", body)
			}
			if status == http.StatusOK && !strings.Contains(body, `"serverInfo"`) {
				t.Errorf("body %s", body)
			}
		})
	}
}

// TestHandlerWithoutBaseURL accepts loopback only.
func TestHandlerWithoutBaseURL(t *testing.T) {
	s := serve(t, "docs", func(c *Config) { c.BaseURL = "" })
	if status, body := post(t, s, "", ""); status != http.StatusOK {
		t.Errorf("loopback: %d %s", status, body)
	}
	if status, _ := post(t, s, "answerdesk.example", ""); status != http.StatusForbidden {
		t.Errorf("foreign host: %d", status)
	}
}

func TestHandlerPathAndMethods(t *testing.T) {
	s := serve(t, "public", nil)
	resp, err := s.srv.Client().Post(s.srv.URL+"/mcp/other", "application/json", strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("other path: %d", resp.StatusCode)
	}
	resp, err = s.srv.Client().Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET (no server-to-client stream): %d", resp.StatusCode)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", maxBodyBytes) + `"}}`
	resp, err = s.srv.Client().Post(s.url, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"error"`) ||
		!json.Valid(body) {
		t.Errorf("a body over 1 MiB: %d %s, want 413 and a JSON-RPC error", resp.StatusCode, body[:min(len(body), 200)])
	}
	if err := Handler(NewPublicServer(s.cfg), "/mcp/public", s.cfg).(interface{ Shutdown(context.Context) error }).Shutdown(context.Background()); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestCORSPreflight(t *testing.T) {
	s := serve(t, "docs", nil)
	for origin, want := range map[string]int{"http://localhost:6274": http.StatusNoContent, "https://evil.example": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodOptions, s.url, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-protocol-version")
		resp, err := s.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != want/100 {
			t.Errorf("%s: preflight %d, want %d", origin, resp.StatusCode, want)
		}
		if want < 300 && resp.Header.Get("Access-Control-Allow-Origin") == "" {
			t.Errorf("%s: no Access-Control-Allow-Origin", origin)
		}
	}
}

func TestGuardUnits(t *testing.T) {
	g := newGuard(Config{BaseURL: "http://localhost:8080"})
	for host, want := range map[string]bool{
		"localhost:8080": true, "127.0.0.1": true, "[::1]:8080": true, "app.localhost": true, "127.0.0.2:1": true,
		"": false, "10.0.0.1": false, "example.com": false, "localhost:18931.evil.example": false, "localhost:": false,
	} {
		if got := g.hostAllowed(host); got != want {
			t.Errorf("host %q: %v, want %v", host, got, want)
		}
	}
	for origin, want := range map[string]bool{
		"http://localhost:8080": true, "http://localhost:3000": true, "http://[::1]:5173": true,
		"https://example.com": false, "null": false, "file://": false, "http://localhost.evil.example": false,
	} {
		if got := g.originAllowed(origin); got != want {
			t.Errorf("origin %q: %v, want %v", origin, got, want)
		}
	}
}
