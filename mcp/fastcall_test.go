package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/mcptest"
	"github.com/answerdesk/answerdesk/ratelimit"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// fastServed is how many calls the public endpoint s answered on its fast path.
func (s *served) fastServed(t *testing.T) int64 {
	t.Helper()
	h, ok := s.srv.Config.Handler.(*endpoint)
	if !ok || h.fast == nil {
		t.Fatal("the public endpoint has no fast path")
	}
	return h.fast.served.Load()
}

// rawMCP posts JSON-RPC bodies to an MCP endpoint with a legacy session.
type rawMCP struct {
	url, session string
}

func newRawMCP(t *testing.T, url string) *rawMCP {
	t.Helper()
	m := &rawMCP{url: url}
	resp, _ := m.post(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	m.session = resp.Header.Get("Mcp-Session-Id")
	if m.session == "" {
		t.Fatal("initialize: no session id")
	}
	if resp, _ := m.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return m
}

// post sends body with the headers of a legacy client (session, protocol 2025-06-18,
// Content-Type application/json), changed by header (an empty value deletes one).
func (m *rawMCP) post(t *testing.T, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, m.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if m.session != "" {
		req.Header.Set("Mcp-Session-Id", m.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// slowPath is a header change that mcp-go accepts as the same request but the fast path
// leaves to it.
var slowPath = map[string]string{"Content-Type": "application/json; charset=utf-8"}

// TestFastCallsAnswerAsMCPGo: a cached public tool call answered on the fast path is the
// same bytes mcp-go writes for it, whatever the id and arguments look like.
func TestFastCallsAnswerAsMCPGo(t *testing.T) {
	s := serve(t, "public", func(c *Config) {
		c.Limiter = &ratelimit.Memory{Limit: 1000, Window: time.Minute}
	})
	m := newRawMCP(t, s.url)
	for _, tc := range []struct{ name, body string }{
		{"company_empty_arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{}}}`},
		{"company_no_arguments", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_company_info"}}`},
		{"string_id", `{"jsonrpc":"2.0","id":"a<b>&c","method":"tools/call","params":{"name":"list_services","arguments":{}}}`},
		{"float_id", `{"params":{"arguments":{"billing_cycle":"annual"},"name":"get_pricing"},"method":"tools/call","id":1.50,"jsonrpc":"2.0"}`},
		{"search", `{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{"name":"search_site","arguments":{"query":"after hours","limit":3}}}`},
		{"page", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_page","arguments":{"url":"/docs/errors"}}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, first := m.post(t, tc.body, slowPath) // a miss: runs the tool and keeps the result
			before := s.fastServed(t)
			slowResp, slow := m.post(t, tc.body, slowPath) // a hit, through mcp-go
			if s.fastServed(t) != before {
				t.Fatal("a request with a Content-Type parameter took the fast path")
			}
			fastResp, fast := m.post(t, tc.body, nil)
			if got := s.fastServed(t); got != before+1 {
				t.Fatalf("fast path answered %d calls, want 1", got-before)
			}
			if !bytes.Equal(first, slow) || !bytes.Equal(slow, fast) {
				t.Fatalf("bodies differ:\nmcp-go miss %s\nmcp-go hit  %s\nfast path   %s", first, slow, fast)
			}
			for _, h := range []string{"Content-Type", "Vary"} {
				if slowResp.Header.Get(h) != fastResp.Header.Get(h) {
					t.Errorf("%s: mcp-go %q, fast path %q", h, slowResp.Header.Get(h), fastResp.Header.Get(h))
				}
			}
			if fastResp.StatusCode != http.StatusOK || bytes.Contains(fast, []byte(`"isError":true`)) {
				t.Fatalf("fast path: %d %s", fastResp.StatusCode, fast)
			}
		})
	}
}

// TestFastCallsLeaveTheRestToMCPGo: only the plainest legacy tools/call of a cached
// result takes the fast path; sessions of another caller or server are refused as before.
func TestFastCallsLeaveTheRestToMCPGo(t *testing.T) {
	s := serve(t, "public", nil)
	m := newRawMCP(t, s.url)
	const company = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{}}}`
	m.post(t, company, nil) // fills the cache
	other := newRawMCP(t, serve(t, "public", nil).url)
	for _, tc := range []struct {
		name       string
		body       string
		header     map[string]string
		wantStatus int
		wantBody   string
	}{
		{"bad_session", company, map[string]string{"Mcp-Session-Id": m.session + "x"}, http.StatusNotFound, "Invalid session ID"},
		{"session_of_another_server", company, map[string]string{"Mcp-Session-Id": other.session}, http.StatusNotFound, "Invalid session ID"},
		{"no_session", company, map[string]string{"Mcp-Session-Id": ""}, http.StatusNotFound, "Invalid session ID"},
		{"unsupported_version", company, map[string]string{"Mcp-Protocol-Version": "2024-01-01"}, http.StatusBadRequest, "Unsupported protocol version"},
		{"origin", company, map[string]string{"Origin": "http://localhost:3000"}, http.StatusOK, `"result"`},
		{"meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{},"_meta":{"progressToken":1}}}`, nil, http.StatusOK, `"result"`},
		{"wrong_jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{}}}`, nil, http.StatusOK, "Invalid JSON-RPC version"},
		{"trailing_data", company + `x`, nil, http.StatusBadRequest, "request body is not valid json"},
		{"unknown_tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, nil, http.StatusOK, "not found"},
		{"not_cached", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_pricing","arguments":{"billing_cycle":"monthly"}}}`, nil, http.StatusOK, `"result"`},
		{"bad_arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{"x":1}}}`, nil, http.StatusOK, `"isError":true`},
		{"tools_list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil, http.StatusOK, `"tools"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := s.fastServed(t)
			resp, body := m.post(t, tc.body, tc.header)
			if s.fastServed(t) != before {
				t.Fatalf("took the fast path: %s", body)
			}
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(body), tc.wantBody) {
				t.Fatalf("got %d %s; want %d with %q", resp.StatusCode, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
	t.Run("origin_gets_cors", func(t *testing.T) {
		resp, _ := m.post(t, company, map[string]string{"Origin": "http://localhost:3000"})
		if resp.Header.Get("Access-Control-Allow-Origin") == "" {
			t.Fatal("no CORS headers for an allowed Origin")
		}
	})
}

// TestFastCallsWithTheMCPGoClient: a legacy mcp-go client over Streamable HTTP gets the same
// results from the fast path as from mcp-go, and the fast path spends the public rate
// limit exactly as the tool middleware does (the refusal is the same tool error).
func TestFastCallsWithTheMCPGoClient(t *testing.T) {
	const limit = 4
	s := serve(t, "public", func(c *Config) {
		c.Limiter = &ratelimit.Memory{Limit: limit, Window: time.Minute}
		now := time.Date(2026, 11, 22, 12, 0, 5, 0, time.UTC)
		c.Now = func() time.Time { return now }
	})
	c, _ := mcptest.Connect(t, s.url, mcpgo.ProtocolVersion20250618)
	args := map[string]any{"query": "call recordings"}
	var results []*mcpgo.CallToolResult
	for i := range limit + 2 {
		before := s.fastServed(t)
		results = append(results, call(t, c, "search_site", args))
		fast := s.fastServed(t) - before
		if want := int64(min(i, 1)); fast != want {
			t.Fatalf("call %d: %d on the fast path, want %d", i, fast, want)
		}
	}
	for i := 1; i < limit; i++ {
		if !reflect.DeepEqual(results[i], results[0]) {
			a, _ := json.Marshal(results[0])
			b, _ := json.Marshal(results[i])
			t.Fatalf("call %d differs from the first:\n%s\n%s", i, a, b)
		}
	}
	for _, res := range results[limit:] {
		wantToolError(t, res, "rate_limited", "4 requests per minute", "Retry in 55 seconds")
	}
	// The slow path's refusal, for comparison: the same tool error.
	m := &rawMCP{url: s.url, session: func() string {
		init := newRawMCP(t, s.url)
		return init.session
	}()}
	_, slow := m.post(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_site","arguments":{"query":"call recordings"}}}`, slowPath)
	var got struct{ Result *mcpgo.CallToolResult }
	if err := json.Unmarshal(slow, &got); err != nil || got.Result == nil {
		t.Fatalf("slow refusal %s: %v", slow, err)
	}
	if text(got.Result) != text(results[limit]) {
		t.Fatalf("refusals differ: mcp-go %q, fast path %q", text(got.Result), text(results[limit]))
	}
}
