package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
)

func post(t *testing.T, url, body string, header ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
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
		"not_json":      `{"requests":`,
		"empty":         `{"requests":[]}`,
		"eleven":        `{"requests":[` + strings.Repeat(`{"id":"x","method":"GET","path":"/company"},`, 10) + `{"id":"y","method":"GET","path":"/company"}]}`,
		"post_method":   `{"requests":[{"id":"a","method":"POST","path":"/company"}]}`,
		"escape":        `{"requests":[{"id":"a","method":"GET","path":"/../v2/messages"}]}`,
		"nested_batch":  `{"requests":[{"id":"a","method":"GET","path":"/batch"}]}`,
		"query_in_path": `{"requests":[{"id":"a","method":"GET","path":"/pricing?billingCycle=annual"}]}`,
		"duplicate_id":  `{"requests":[{"id":"a","method":"GET","path":"/company"},{"id":"a","method":"GET","path":"/services"}]}`,
		"relative":      `{"requests":[{"id":"a","method":"GET","path":"company"}]}`,
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			resp, e := post(t, ts.URL+"/api/v1/batch", b)
			if resp.StatusCode != 400 || e["code"] != "rest_invalid_param" {
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
	for _, p := range []string{"/company", "/services", "/pricing?billingCycle=annual", "/pricing?billingCycle=yearly", "/nope", "/company", "/company", "/company"} {
		_, body := get(t, ts.URL+"/api/sandbox/v1"+p)
		if !strings.HasPrefix(body, `{"sandbox":true,`) {
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
