package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestPublicResultCache: a repeated public tool call gets the same answer (from the cache),
// other arguments get their own, and a tool error is answered afresh each time.
func TestPublicResultCache(t *testing.T) {
	s := serve(t, "public", nil)
	c := s.connect(t, false)
	seen := map[string]string{}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"get_company_info", nil},
		{"list_services", nil},
		{"get_pricing", map[string]any{"billing_cycle": "annual"}},
		{"get_pricing", map[string]any{"billing_cycle": "monthly"}},
		{"search_site", map[string]any{"query": "after hours answering"}},
		{"search_site", map[string]any{"query": "after hours answering", "limit": 2}},
		{"read_page", map[string]any{"url": "/docs/errors"}},
	} {
		first := call(t, c, tc.tool, tc.args)
		again := call(t, c, tc.tool, tc.args)
		if first.IsError || again.IsError {
			t.Fatalf("%s %v: tool error %s", tc.tool, tc.args, text(first))
		}
		var a, b any
		structured(t, first, &a)
		structured(t, again, &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) || text(first) != text(again) {
			t.Fatalf("%s %v: a repeat answered differently", tc.tool, tc.args)
		}
		for other, body := range seen {
			if body == string(ja) && tc.tool == "search_site" {
				t.Errorf("%s %v answered like %s", tc.tool, tc.args, other)
			}
		}
		seen[tc.tool+string(mustJSON(t, tc.args))] = string(ja)
	}
	for range 2 {
		wantToolError(t, call(t, c, "get_pricing", map[string]any{"service": "no-such-service"}), "no-such-service")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResultCacheBudget: the cache stays within its byte budget, dropping the least recently
// used result, and keeps a result's structured content encoded.
func TestResultCacheBudget(t *testing.T) {
	res := func(n int) *mcpgo.CallToolResult {
		return mcpgo.NewToolResultStructured(map[string]any{"pad": strings.Repeat("x", n)}, "text")
	}
	probe := newResultCache(1 << 20)
	probe.put("k0", res(500))
	c := newResultCache(int(3*probe.lru.Size() + probe.lru.Size()/2)) // room for three results, not four
	for i := range 3 {
		c.put(fmt.Sprint("k", i), res(500))
	}
	if _, ok := c.get("k0"); !ok {
		t.Fatal("k0 missing")
	}
	kept := c.put("k3", res(500)) // over the budget: k1, the least recently used, goes
	if _, ok := kept.StructuredContent.(json.RawMessage); !ok {
		t.Errorf("structured content kept as %T, want json.RawMessage", kept.StructuredContent)
	}
	for key, want := range map[string]bool{"k0": true, "k1": false, "k2": true, "k3": true} {
		if _, ok := c.get(key); ok != want {
			t.Errorf("%s cached = %v, want %v", key, ok, want)
		}
	}
	if c.lru.Size() > c.lru.Budget() {
		t.Errorf("size %d over budget %d", c.lru.Size(), c.lru.Budget())
	}
	c.put("huge", res(5000))
	if _, ok := c.get("huge"); ok {
		t.Error("a result over the whole budget was kept")
	}
}
