package search

import (
	"context"
	"testing"

	"github.com/answerdesk/answerdesk/content"
)

// TestSearchDocsIsPassages: a site search of the documentation returns the sections that
// searchDocumentation (Passages) returns, in the same order (issue 13: one engine).
func TestSearchDocsIsPassages(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct{ name, q string }{
		{"a new user's question", "what happens when my webhook endpoint is down"},
		{"pagination", "how do I paginate messages"},
		{"a limit", "rate limit of the public API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := ix.Passages(context.Background(), tc.q, 5)
			if err != nil {
				t.Fatal(err)
			}
			page, err := ix.Search(context.Background(), Query{Q: tc.q, Type: content.TypeDocs, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Results) != len(ps) {
				t.Fatalf("%d results, %d passages", len(page.Results), len(ps))
			}
			for i, r := range page.Results {
				if r.URL != ps[i].URL {
					t.Errorf("result %d: %s, passage %s", i, r.URL, ps[i].URL)
				}
			}
		})
	}
}
