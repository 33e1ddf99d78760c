package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestPublicResultCache: a repeated public tool call gets the same answer from the cache
// (a result kept under its call is what a repeat answers), other arguments get their own,
// and a tool error is never kept but answered afresh each time.
func TestPublicResultCache(t *testing.T) {
	s := serve(t, "public", nil)
	if s.cache == nil {
		t.Fatal("the public server has no result cache")
	}
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
		key, err := resultKey(tc.tool, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		first := call(t, c, tc.tool, tc.args)
		if _, ok := s.cache.get(key); !ok {
			t.Fatalf("%s %v: the result was not kept", tc.tool, tc.args)
		}
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
		// A repeat must be answered from the cache, not by the tool: with the kept result's
		// text changed, the next call says the changed text.
		marked := *first
		marked.Content = []mcpgo.Content{mcpgo.NewTextContent("kept for " + key)}
		s.cache.put(key, &marked)
		if got := text(call(t, c, tc.tool, tc.args)); got != "kept for "+key {
			t.Errorf("%s %v: a repeat was not answered from the cache: %.80q", tc.tool, tc.args, got)
		}
		for other, body := range seen {
			if body == string(ja) && tc.tool == "search_site" {
				t.Errorf("%s %v answered like %s", tc.tool, tc.args, other)
			}
		}
		seen[key] = string(ja)
	}
	bad := map[string]any{"service": "no-such-service"}
	for range 2 {
		wantToolError(t, call(t, c, "get_pricing", bad), "no-such-service")
	}
	if key, err := resultKey("get_pricing", bad); err != nil {
		t.Fatal(err)
	} else if _, kept := s.cache.get(key); kept {
		t.Error("a tool error was kept")
	}
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
