package rest_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/blevesearch/bleve/v2"
)

// countIndexQueries wraps h so that every query the search index runs for a request adds
// one to n: bleve calls SearchQueryStartCallbackKey's function of the request's context
// before each query it runs, so a body answered from the cache adds nothing.
func countIndexQueries(h http.Handler, n *atomic.Int64) http.Handler {
	count := bleve.SearchQueryStartCallbackFn(func(uint64) error { n.Add(1); return nil })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bleve.SearchQueryStartCallbackKey, count)))
	})
}

// TestPublicSearchCache: repeated searches are answered from the cache of encoded results
// (the index is not asked again), byte for byte the same, while every other query, limit
// or type gets its own answer, and an error is never cached.
func TestPublicSearchCache(t *testing.T) {
	site, index := indexedSite(t, content.Embedded())
	ts := serve(t, &rest.Server{Site: site, Search: index, Logger: quietLogger()})
	var queries atomic.Int64
	ts.Config.Handler = countIndexQueries(ts.Config.Handler, &queries)
	fetch := func(query string) (int, string, string) {
		t.Helper()
		resp, body := get(t, ts.URL+"/api/v1/search?"+query)
		return resp.StatusCode, resp.Header.Get("ETag"), body
	}
	bodies := map[string]string{}
	for _, q := range []string{"q=answering+service", "q=answering+service&limit=2", "q=Answering+service", "q=dental", "q=dental&type=blog"} {
		before := queries.Load()
		status, tag, body := fetch(q)
		first := queries.Load()
		status2, tag2, body2 := fetch(q)
		if status != 200 || status2 != 200 || tag != tag2 || body != body2 {
			t.Fatalf("%s: %d %s then %d %s", q, status, tag, status2, tag2)
		}
		if first == before {
			t.Fatalf("%s: the first search ran no index query (is the counter wired?)", q)
		}
		if again := queries.Load() - first; again != 0 {
			t.Errorf("%s: the repeat ran %d index queries, want 0 (answered from the cache)", q, again)
		}
		for other, b := range bodies {
			if b == body {
				t.Errorf("%s answered like %s", q, other)
			}
		}
		bodies[q] = body
	}
	for range 2 {
		if status, _, body := fetch("q=dental&cursor=bogus"); status != 400 {
			t.Fatalf("bad cursor: %d %s", status, body)
		}
	}
}
