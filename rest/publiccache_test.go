package rest_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/rest"
)

// TestPublicSearchCache: repeated searches are answered from the cache of encoded results,
// byte for byte the same, while every other query, limit or type gets its own answer, and
// an error is never cached.
func TestPublicSearchCache(t *testing.T) {
	site, index := indexedSite(t, content.Embedded())
	ts := serve(t, &rest.Server{Site: site, Search: index, Logger: quietLogger()})
	fetch := func(query string) (int, string, string) {
		t.Helper()
		resp, err := http.Get(ts.URL + "/api/v1/search?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header.Get("ETag"), string(b)
	}
	bodies := map[string]string{}
	for _, q := range []string{"q=answering+service", "q=answering+service&limit=2", "q=Answering+service", "q=dental", "q=dental&type=blog"} {
		status, tag, body := fetch(q)
		status2, tag2, body2 := fetch(q)
		if status != 200 || status2 != 200 || tag != tag2 || body != body2 {
			t.Fatalf("%s: %d %s then %d %s", q, status, tag, status2, tag2)
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
