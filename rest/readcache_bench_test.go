package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// BenchmarkReadCache measures GET /api/v2/messages?page_size=50 at 100,000 messages through
// the whole handler stack: a repeat served from the cache of encoded pages (hit), a
// revalidation answered 304 (not_modified), and the uncached read (miss: the queries and
// the encoding, as every request was before the cache).
func BenchmarkReadCache(b *testing.B) {
	app := testapp.New(b)
	if err := demo.SeedMessages(context.Background(), app.DB, "1001", 100_000, 60, testapp.Start); err != nil {
		b.Fatal(err)
	}
	hit := app.Rest.Handler()
	const path = "/api/v2/messages?page_size=50"
	req := benchGet(path, app.Alice.Token, "")
	first := httptest.NewRecorder()
	hit.ServeHTTP(first, req)
	cond := benchGet(path, app.Alice.Token, first.Header().Get("ETag"))
	for _, bc := range []struct {
		name string
		h    func() http.Handler
		req  *http.Request
		want int
	}{
		{"hit", func() http.Handler { return hit }, req, http.StatusOK},
		{"not_modified", func() http.Handler { return hit }, cond, http.StatusNotModified},
		{"miss", func() http.Handler {
			app.Rest.PageCacheBytes = 1 // nothing fits: every request builds its page
			return app.Rest.Handler()
		}, req, http.StatusOK},
	} {
		b.Run(bc.name, func(b *testing.B) { serveLoop(b, bc.h(), bc.want, func() *http.Request { return bc.req }) })
	}
}
