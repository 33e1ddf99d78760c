package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/store"
)

// BenchmarkListMessages measures GET /api/v2/messages through the whole handler stack
// (auth, validation, queries, JSON) for one account with 100,000 messages over 60 days.
func BenchmarkListMessages(b *testing.B) {
	app := testapp.New(b)
	if err := demo.SeedMessages(context.Background(), app.DB, "1001", 100_000, 60, testapp.Start); err != nil {
		b.Fatal(err)
	}
	app.Rest.PageCacheBytes = 1 // the queries and the encoding on every request, not the cache (BenchmarkReadCache)
	h := app.Rest.Handler()
	from := testapp.Start.AddDate(0, 0, -30).Format("01-02-2006")
	to := testapp.Start.Format("01-02-2006")
	cases := []struct{ name, query string }{
		{"page1", "page_size=50"},
		{"page1000", "page_size=50&page=1000"},
		{"origin", "page_size=50&origin=call"},
		{"dates", fmt.Sprintf("page_size=50&start_date=%s&end_date=%s", from, to)},
		{"origin_dates", fmt.Sprintf("page_size=50&origin=call&start_date=%s&end_date=%s", from, to)},
		{"origin_page1000", "page_size=50&origin=call&page=1000"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			req := benchGet("/api/v2/messages?"+c.query, app.Alice.Token, "")
			serveLoop(b, h, http.StatusOK, func() *http.Request { return req })
		})
	}
}

// BenchmarkCreateAsyncBatch measures POST /api/v1/batch with Prefer: respond-async through
// the handler stack, the per-client job quota check included (a count over the client's
// unexpired jobs in the insert's transaction), with 10,000 jobs of other clients stored.
func BenchmarkCreateAsyncBatch(b *testing.B) {
	app := testapp.New(b)
	site, err := content.Load(content.Sandbox())
	if err != nil {
		b.Fatal(err)
	}
	jobs := store.NewBatchJobs(app.DB)
	app.Rest.Site, app.Rest.Jobs = site, jobs
	reqs := []answerdesk.BatchRequest{{ID: "s", Method: "GET", Path: "/services"}}
	for i := range 10_000 {
		if _, err := jobs.CreateBatchJob(context.Background(), fmt.Sprintf("198.51.%d.%d", i/250, i%250), false, reqs, testapp.Start); err != nil {
			b.Fatal(err)
		}
	}
	h := app.Rest.Handler()
	body := `{"requests":[{"id":"s","method":"GET","path":"/services"}]}`
	i := 0
	serveLoop(b, h, http.StatusAccepted, func() *http.Request {
		req := httptest.NewRequest("POST", "/api/v1/batch", strings.NewReader(body))
		req.Header.Set("Prefer", "respond-async")
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = fmt.Sprintf("[2001:db8:%x::1]:4000", i) // a new /64 each time: never over the quota
		i++
		return req
	})
}

// BenchmarkListToDos measures GET /api/v2/to-dos?page_size=100 over 100 recurring To Dos
// created a year ago: every one computes schedule.upcoming from its stored rule.
func BenchmarkListToDos(b *testing.B) {
	app := testapp.New(b)
	app.Clock.Set(testapp.Start.AddDate(-1, 0, 0))
	for i := range 100 {
		r := app.Do(b, "POST", "/api/v2/to-dos", app.Alice.Token, fmt.Sprintf(`{"account_number":"1001","delivery_type":"call","instructions":"check-in %d",
			"schedule":{"frequency":"weekly","days":["monday","thursday"],"times":["09:30","17:00"]}}`, i))
		if r.Status != http.StatusOK {
			b.Fatalf("create: %d %s", r.Status, r.Body)
		}
	}
	app.Clock.Set(testapp.Start)
	h := app.Rest.Handler()
	for _, state := range []string{"", "&state=active"} {
		b.Run("page_size_100"+state, func(b *testing.B) {
			req := benchGet("/api/v2/to-dos?page_size=100"+state, app.Alice.Token, "")
			serveLoop(b, h, http.StatusOK, func() *http.Request { return req })
		})
	}
}

// benchGet is a GET of path for the handler as token, conditional on ifNoneMatch when set.
func benchGet(path, token, ifNoneMatch string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	return req
}

// serveLoop serves the request newReq makes through h once per iteration, reporting
// allocations, and fails on any status but want.
func serveLoop(b *testing.B, h http.Handler, want int, newReq func() *http.Request) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newReq())
		if rec.Code != want {
			b.Fatalf("status %d, want %d: %s", rec.Code, want, rec.Body)
		}
	}
}
