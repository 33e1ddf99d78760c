package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
)

func post(t *testing.T, url, body string, header ...string) (*http.Response, map[string]any) {
	t.Helper()
	resp, b := send(t, "POST", url, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, header...)...)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return resp, m
}

const twoOps = `{"requests":[{"id":"a","method":"GET","path":"/company"},{"id":"b","method":"GET","path":"/pricing","query":{"billingCycle":"annual"}},{"id":"c","method":"GET","path":"/nope"}]}`

func TestBatch(t *testing.T) {
	ts, _ := publicServer(t, 1000, nil)
	resp, body := post(t, ts.URL+"/api/v1/batch", twoOps, "Idempotency-Key", "k1")
	rs, _ := body["responses"].([]any)
	if resp.StatusCode != 200 || len(rs) != 3 || resp.Header.Get("Idempotency-Key") != "k1" {
		t.Fatalf("batch: %d %v", resp.StatusCode, body)
	}
	first, second, third := rs[0].(map[string]any), rs[1].(map[string]any), rs[2].(map[string]any)
	if first["id"] != "a" || first["status"] != 200.0 || first["body"].(map[string]any)["name"] != "Testco" {
		t.Fatalf("first %v", first)
	}
	if second["body"].(map[string]any)["billingCycle"] != "annual" || third["status"] != 404.0 || third["body"].(map[string]any)["code"] != "rest_no_route" {
		t.Fatalf("second %v third %v", second, third)
	}
	bad := map[string]string{
		"empty":         `{"requests":[]}`,
		"eleven":        `{"requests":[` + strings.Repeat(`{"id":"x","method":"GET","path":"/company"},`, 10) + `{"id":"y","method":"GET","path":"/company"}]}`,
		"post_method":   `{"requests":[{"id":"a","method":"POST","path":"/company"}]}`,
		"escape":        `{"requests":[{"id":"a","method":"GET","path":"/../v2/messages"}]}`,
		"nested_batch":  `{"requests":[{"id":"a","method":"GET","path":"/batch"}]}`,
		"query_in_path": `{"requests":[{"id":"a","method":"GET","path":"/pricing?billingCycle=annual"}]}`,
		"duplicate_id":  `{"requests":[{"id":"a","method":"GET","path":"/company"},{"id":"a","method":"GET","path":"/services"}]}`,
		"relative":      `{"requests":[{"id":"a","method":"GET","path":"company"}]}`,
		"nul_in_query":  `{"requests":[{"id":"a","method":"GET","path":"/pricing","query":{"billingCycle":"annual\u0000"}}]}`,
		"nul_in_id":     `{"requests":[{"id":"a\u0000","method":"GET","path":"/company"}]}`,
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			resp, e := post(t, ts.URL+"/api/v1/batch", b)
			if resp.StatusCode != 400 || e["code"] != "rest_invalid_param" {
				t.Fatalf("%d %v", resp.StatusCode, e)
			}
		})
	}
	// A body that is not a JSON object at all is a processing error, as in the customer API.
	for name, b := range map[string]string{"not_json": `{"requests":`, "array": `[{"id":"a"}]`, "null": `null`, "empty": ``} {
		t.Run(name, func(t *testing.T) {
			resp, e := post(t, ts.URL+"/api/v1/batch", b)
			if resp.StatusCode != 400 || e["code"] != "processing_error" {
				t.Fatalf("%d %v", resp.StatusCode, e)
			}
		})
	}
	t.Run("over_64KiB", func(t *testing.T) {
		resp, e := post(t, ts.URL+"/api/v1/batch", `{"requests":[{"id":"`+strings.Repeat("x", 70<<10)+`"}]}`)
		if resp.StatusCode != 413 || e["code"] != "payload_too_large" {
			t.Fatalf("%d %v", resp.StatusCode, e)
		}
	})
}

func TestBatchCountsEveryOperation(t *testing.T) {
	ts, _ := publicServer(t, 4, nil)
	resp, _ := post(t, ts.URL+"/api/v1/batch", twoOps)
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("after a batch of 3: %d remaining %s", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if resp, e := post(t, ts.URL+"/api/v1/batch", twoOps); resp.StatusCode != 429 || e["code"] != "rate_limited" {
		t.Fatalf("a batch over the limit: %d %v", resp.StatusCode, e)
	}
}

func TestAsyncBatch(t *testing.T) {
	app := testapp.New(t)
	site, err := content.Load(content.Sandbox())
	if err != nil {
		t.Fatal(err)
	}
	jobs := store.NewBatchJobs(app.DB)
	srv := app.Rest
	srv.Site, srv.Sandbox, srv.Jobs = site, site, jobs
	app.Server.Config.Handler = srv.Handler()
	runner := &dispatch.BatchRunner{Store: jobs, Execute: srv.ExecuteBatch, Now: app.Clock.Now}

	resp, body := post(t, app.Server.URL+"/api/v1/batch", twoOps, "Prefer", "respond-async")
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 202 || !strings.HasPrefix(loc, "/api/v1/batch/jobs/job_") || resp.Header.Get("Preference-Applied") != "respond-async" || body["status"] != "pending" {
		t.Fatalf("async: %d %v %v", resp.StatusCode, resp.Header, body)
	}
	var pending map[string]any
	if r := getJSON(t, app.Server.URL+loc, &pending); r.StatusCode != 202 || pending["status"] != "pending" {
		t.Fatalf("before the runner: %d %v", r.StatusCode, pending)
	}
	if n, err := runner.Tick(context.Background()); err != nil || n != 1 {
		t.Fatalf("runner: %d %v", n, err)
	}
	var done struct {
		Responses []struct {
			ID     string
			Status int
		}
	}
	if r := getJSON(t, app.Server.URL+loc, &done); r.StatusCode != 200 || len(done.Responses) != 3 || done.Responses[2].Status != 404 {
		t.Fatalf("after the runner: %d %+v", r.StatusCode, done)
	}
	// The job is not visible from the sandbox, and is gone after 24 hours.
	if r, _ := get(t, app.Server.URL+strings.Replace(loc, "/api/v1/", "/api/sandbox/v1/", 1)); r.StatusCode != 404 {
		t.Fatalf("job under the sandbox: %d", r.StatusCode)
	}
	app.Clock.Advance(24*time.Hour + time.Second)
	var e errorBody
	if r := getJSON(t, app.Server.URL+loc, &e); r.StatusCode != 404 || e.Code != "job_not_found" {
		t.Fatalf("after 24 h: %d %+v", r.StatusCode, e)
	}
	if n, _ := jobs.PurgeBatchJobs(context.Background(), app.Clock.Now()); n != 1 {
		t.Fatalf("purged %d", n)
	}
}

func TestSandbox(t *testing.T) {
	site, err := content.Load(content.Sandbox())
	if err != nil {
		t.Fatal(err)
	}
	ts, srv := publicServer(t, 7, func(c *rest.PublicConfig) {})
	srv.Sandbox = site
	ts.Config.Handler = srv.Handler()
	for _, p := range []string{"/company?x=%00", "/company", "/services", "/pricing?billingCycle=annual", "/pricing?billingCycle=yearly", "/nope", "/company", "/company", "/company"} {
		// get fails on a body cut short: a Content-Length set before the marker did that.
		_, body := get(t, ts.URL+"/api/sandbox/v1"+p)
		if !strings.HasPrefix(body, `{"sandbox":true,`) || !json.Valid([]byte(body)) {
			t.Errorf("%s: %s", p, body)
		}
	}
	var company map[string]any
	// The sandbox has its own allowance (the last requests above were 429s): v1 still has its own.
	if r := getJSON(t, ts.URL+"/api/v1/company", &company); r.StatusCode != 200 || company["name"] != "Testco" {
		t.Fatalf("v1 after sandbox requests: %d", r.StatusCode)
	}
	_, batch := post(t, ts.URL+"/api/sandbox/v1/batch", `{"requests":[{"id":"a","method":"GET","path":"/company"}]}`)
	if batch["sandbox"] != true {
		t.Fatalf("sandbox batch %v", batch)
	}
}

// TestAsyncBatchBounds: async batch jobs stored about 100 times their
// request for 24 hours, with no bound per client. Now one client (an IPv6 /64 here) holds
// at most MaxBatchJobsPerClient jobs and about MaxBatchJobBytesPerClient bytes; a job's
// responses are at most MaxBatchJobResponseBytes; over the bound a new job is 429
// rate_limited with Retry-After, while other clients are unaffected.
func TestAsyncBatchBounds(t *testing.T) {
	app := testapp.New(t)
	site, index := indexedSite(t, content.Embedded())
	jobs := store.NewBatchJobs(app.DB)
	srv := app.Rest
	srv.Site, srv.Search, srv.Jobs = site, index, jobs
	srv.Public.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	app.Server.Config.Handler = srv.Handler()
	runner := &dispatch.BatchRunner{Store: jobs, Execute: srv.ExecuteBatch, Now: app.Clock.Now}

	// The attack: ten searches of 50 results each, about 1.2 KB asking for ~140 KB.
	var ops []string
	for i, q := range []string{"plumbing", "dental", "calls", "after hours", "answering", "pricing", "law", "chat", "hvac", "messages"} {
		ops = append(ops, fmt.Sprintf(`{"id":"s%d","method":"GET","path":"/search","query":{"q":%q,"limit":"50"}}`, i, q))
	}
	attack := `{"requests":[` + strings.Join(ops, ",") + `]}`
	send := func(client string) (*http.Response, map[string]any) {
		return post(t, app.Server.URL+"/api/v1/batch", attack, "Prefer", "respond-async", "X-Forwarded-For", client)
	}
	accepted, refused := 0, 0
	for i := range 60 {
		resp, body := send(fmt.Sprintf("2001:db8:1:2::%x", i+1)) // a new address of one /64 every time
		switch resp.StatusCode {
		case http.StatusAccepted:
			accepted++
			if _, err := runner.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
		case http.StatusTooManyRequests:
			refused++
			if body["code"] != "rate_limited" || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Retry-After") == "0" {
				t.Fatalf("refusal: %v %v", resp.Header, body)
			}
		default:
			t.Fatalf("job %d: %d %v", i, resp.StatusCode, body)
		}
	}
	if accepted > answerdesk.MaxBatchJobsPerClient || refused == 0 {
		t.Fatalf("accepted %d, refused %d: want at most %d accepted", accepted, refused, answerdesk.MaxBatchJobsPerClient)
	}
	raw := app.DB.SQL()
	var stored, largest int64
	if err := raw.QueryRow(`SELECT coalesce(sum(length(requests) + length(coalesce(responses, ''))), 0),
		coalesce(max(length(coalesce(responses, ''))), 0) FROM batch_jobs`).Scan(&stored, &largest); err != nil {
		t.Fatal(err)
	}
	t.Logf("one /64: %d jobs accepted, %d refused, %d KiB stored, largest job %d KiB", accepted, refused, stored>>10, largest>>10)
	if limit := int64(answerdesk.MaxBatchJobBytesPerClient + answerdesk.MaxBatchJobResponseBytes + 64<<10); stored > limit {
		t.Fatalf("one client stores %d bytes, want at most %d", stored, limit)
	}
	if largest > answerdesk.MaxBatchJobResponseBytes {
		t.Fatalf("a job stores %d bytes of responses, want at most %d", largest, answerdesk.MaxBatchJobResponseBytes)
	}
	if resp, body := send("203.0.113.5"); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("another client: %d %v", resp.StatusCode, body)
	}
	app.Clock.Advance(answerdesk.BatchJobTTL + time.Second)
	if resp, body := send("2001:db8:1:2::1"); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("after the jobs expired: %d %v", resp.StatusCode, body)
	}
}
