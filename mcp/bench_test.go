package mcp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/latency"
	"github.com/answerdesk/answerdesk/rest"
)

// BenchmarkToolsCall measures tools/call over Streamable HTTP (the mcp-go client, the
// stateless protocol, a real loopback HTTP connection), one call at a time, with the
// servers configured as in production. It reports calls/s and the p50 and p99 latency,
// to compare with the same reads over REST (/api/v1/company, /api/v1/search).
func BenchmarkToolsCall(b *testing.B) {
	validateOutput = false
	defer func() { validateOutput = true }()
	s := serve(b, "public", nil)
	c := s.connect(b, false)
	for _, bc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"get_company_info", "get_company_info", nil},
		{"search_site", "search_site", map[string]any{"query": "after hours answering", "limit": 10}},
	} {

		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			latency.Measure(b, "calls/s", func() {
				if res := call(b, c, bc.tool, bc.args); res.IsError {
					b.Fatalf("tool error: %s", text(res))
				}
			})
		})
	}
}

// BenchmarkREST makes the same reads as BenchmarkToolsCall over the public REST API, on the
// same content and index, one request at a time over a kept-alive loopback connection, so
// the two can be compared in one run: go test -bench . ./mcp/
func BenchmarkREST(b *testing.B) {
	s := serve(b, "public", nil)
	srv := &rest.Server{Site: s.cfg.Site, Search: s.cfg.Index, Logger: s.cfg.Logger}
	ts := httptest.NewServer(nil)
	defer ts.Close()
	srv.BaseURL = ts.URL
	ts.Config.Handler = srv.Handler()
	client := ts.Client()
	for _, bc := range []struct{ name, path string }{
		{"company", "/api/v1/company"},
		{"search", "/api/v1/search?q=after+hours+answering&limit=10"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			get := func() {
				resp, err := client.Get(ts.URL + bc.path)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%s: %d", bc.path, resp.StatusCode)
				}
			}
			latency.Measure(b, "calls/s", get)
		})
	}
}

// BenchmarkCachedToolCall measures a cached tools/call of the public server in process, as
// a pre-2026 client sends it (a session, raw JSON-RPC): on the fast path, and through
// mcp-go (the same request with a Content-Type parameter, which the fast path leaves to it).
func BenchmarkCachedToolCall(b *testing.B) {
	validateOutput = false
	defer func() { validateOutput = true }()
	s := serve(b, "public", nil)
	h := s.srv.Config.Handler
	post := func(body, session, contentType string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code/100 != 2 {
			b.Fatalf("%d: %s", rec.Code, rec.Body)
		}
		return rec
	}
	session := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
		"", "application/json").Header().Get("Mcp-Session-Id")
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{}}}`
	post(call, session, "application/json") // fills the cache
	for _, bc := range []struct{ name, contentType string }{
		{"fast_path", "application/json"},
		{"mcp_go", "application/json; charset=utf-8"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				post(call, session, bc.contentType)
			}
		})
	}
}
