package main

// The dispatch scenario: messages created over HTTP and pushed by the server's dispatcher
// to a receiver inside loadgen (the External API dispatching docs page).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/store"
)

// Targets of the dispatch scenario.
const (
	targetDeliveryRate = 500.0 // deliveries per second
	targetDeliveryP50  = 20 * time.Millisecond
)

const (
	dispatchWarmUp  = 200             // messages pushed before the measurement, to open connections
	dispatchTimeout = 2 * time.Minute // for every delivery to arrive after the last POST
	dispatchPoll    = 2 * time.Millisecond
	receiverPath    = "/loadgen/messages"
	apiPrefix       = "/api/v2"
)

// runDispatch seeds a fresh demo database in dir, starts the server on it with
// --dispatch-allow-private, points account 1001's on-call contacts at a receiver in this
// process, POSTs cfg.dispatch messages and prints how fast and how soon they arrived.
//
// With several replicas, the POSTs and the API calls go round-robin over them, and every
// replica's dispatcher claims deliveries. With sum (-compare), the figures go into it too.
func runDispatch(ctx context.Context, cfg *config, dir string, sum *summary) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	dbPath, drop, err := newDatabase(ctx, cfg, dir, "dispatch")
	if err != nil {
		return err
	}
	defer drop()
	start := time.Now()
	token, err := seedDemo(ctx, dbPath)
	if err != nil {
		return err
	}
	fmt.Printf("\ndispatch: seeded a fresh demo database in %s\n", time.Since(start).Round(time.Millisecond))

	rcv, err := startReceiver()
	if err != nil {
		return err
	}
	defer rcv.stop()

	servers, err := startCluster(ctx, cfg, dbPath, serverEnv(cfg), append([]string{"--dispatch-allow-private"}, strings.Fields(cfg.serverFlags)...)...)
	if err != nil {
		return err
	}
	defer servers.stop()
	api := &apiClient{client: newClient(cfg.dispatchConcurrency), servers: &roundRobin{bases: servers.bases()}, token: token}
	for _, b := range api.servers.bases {
		if err := waitReady(ctx, api.client, b+"/readyz"); err != nil {
			return fmt.Errorf("answerdesk: %w", err)
		}
	}
	if err := replaceContacts(ctx, api, rcv.url); err != nil {
		return err
	}

	// Warm-up: connections on both sides, statement caches, the receiver's map.
	warm := postMessages(ctx, api, dispatchWarmUp, cfg.dispatchConcurrency, 0, "warm-up")
	if err := warm.firstError(); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if _, err := rcv.wait(ctx, warm.ids(), dispatchTimeout); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}

	pace := "as fast as they go"
	if cfg.dispatchRate > 0 {
		pace = fmt.Sprintf("paced at %.0f/s", cfg.dispatchRate)
	}
	fmt.Printf("dispatch: POSTing %d messages with %d workers, %s (after %d warm-up ones); the receiver answers 200 at once\n",
		cfg.dispatch, cfg.dispatchConcurrency, pace, dispatchWarmUp)
	posts := postMessages(ctx, api, cfg.dispatch, cfg.dispatchConcurrency, cfg.dispatchRate, "loadgen")
	if ctx.Err() != nil {
		return ctx.Err()
	}
	ids := posts.ids()
	received, waitErr := rcv.wait(ctx, ids, dispatchTimeout)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The last outcomes are recorded after their batch; give them a moment.
	var pending, failed int
	for settle := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pending, _ = api.deliveryCount(ctx, "pending")
		if pending == 0 || time.Now().After(settle) || ctx.Err() != nil {
			break
		}
	}
	failed, _ = api.deliveryCount(ctx, "failed")
	create, deliveryRate, deliveryP50 := printDispatch(os.Stdout, posts, received, rcv.counts(), pending, failed)
	if sum != nil {
		sum.create, sum.deliveryRate, sum.deliveryP50 = create, deliveryRate, deliveryP50
		sum.deliveriesIncomplete = waitErr != nil
	}
	return waitErr
}

// seedDemo creates the demo database at path and returns the demo API token.
func seedDemo(ctx context.Context, path string) (string, error) {
	db, err := store.Open(ctx, path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	creds, err := demo.Seed(ctx, db, demo.Options{})
	if err != nil {
		return "", fmt.Errorf("seed demo data: %w", err)
	}
	return creds.Token, nil
}

// replaceContacts deletes the on-call contacts of account 1001 (the demo's points at
// hooks.acme.example, which does not resolve) and creates one pushing to url.
func replaceContacts(ctx context.Context, api *apiClient, url string) error {
	var list struct {
		Data []struct {
			ID            int64  `json:"id"`
			AccountNumber string `json:"account_number"`
		} `json:"data"`
	}
	if err := api.call(ctx, http.MethodGet, "/on-call-contacts?page_size=100", nil, &list); err != nil {
		return err
	}
	deleted := 0
	for _, c := range list.Data {
		if c.AccountNumber != accountNumber {
			continue
		}
		if err := api.call(ctx, http.MethodDelete, fmt.Sprintf("/on-call-contacts/%d", c.ID), nil, nil); err != nil {
			return err
		}
		deleted++
	}
	body, _ := json.Marshal(map[string]any{
		"account_number":   accountNumber,
		"name":             "loadgen receiver",
		"escalation_level": 1,
		"delivery_methods": []map[string]any{{
			"type": "external_api", "url": url, "payload_type": "JSON",
			"data": []map[string]string{{"field": "id", "value": "{{message.id}}"}},
		}},
	})
	var created struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := api.call(ctx, http.MethodPost, "/on-call-contacts", body, &created); err != nil {
		return err
	}
	fmt.Printf("dispatch: deleted %d on-call contact(s) of account %s; contact %d pushes to %s\n", deleted, accountNumber, created.Data.ID, url)
	return nil
}

// apiClient calls the customer API with a token, on the servers in turn.
type apiClient struct {
	client  *http.Client
	servers *roundRobin
	token   string
}

// call sends body (JSON, or none when nil) to path under /api/v2 and decodes a 200
// answer into out (unless nil).
func (a *apiClient) call(ctx context.Context, method, path string, body []byte, out any) error {
	var r io.Reader = http.NoBody
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.servers.base()+apiPrefix+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: read body: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, snippet(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// deliveryCount returns how many of the account's deliveries have the status.
func (a *apiClient) deliveryCount(ctx context.Context, status string) (int, error) {
	var list struct {
		Meta struct {
			Total int `json:"total"`
		} `json:"meta"`
	}
	err := a.call(ctx, http.MethodGet, "/dispatch-deliveries?page_size=1&status="+status, nil, &list)
	return list.Meta.Total, err
}

// postResult is one message creation.
type postResult struct {
	id         int64
	start, end time.Time
	err        error
}

type postResults []postResult

func (ps postResults) ids() []int64 {
	var ids []int64
	for _, p := range ps {
		if p.err == nil {
			ids = append(ids, p.id)
		}
	}
	return ids
}

func (ps postResults) firstError() error {
	for _, p := range ps {
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// postMessages creates n messages for account 1001 with `workers` concurrent POSTs, as
// fast as they go or, when rate > 0, the i-th no sooner than i/rate seconds after the first.
func postMessages(ctx context.Context, api *apiClient, n, workers int, rate float64, label string) postResults {
	out := make(postResults, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if rate > 0 {
					time.Sleep(time.Until(begin.Add(time.Duration(float64(i) / rate * float64(time.Second)))))
				}
				body := fmt.Appendf(nil, `{"message":{"content":"%s message %d: the water heater in the basement is leaking, please call back","account_number":%q}}`,
					label, i, accountNumber)
				var created struct {
					Data struct {
						ID int64 `json:"id"`
					} `json:"data"`
				}
				p := &out[i]
				p.start = time.Now()
				p.err = api.call(ctx, http.MethodPost, "/messages", body, &created)
				p.end = time.Now()
				if p.err == nil && created.Data.ID == 0 {
					p.err = errors.New("POST /messages: no id in the answer")
				}
				p.id = created.Data.ID
			}
		})
	}
	wg.Wait()
	for i := range out {
		if out[i].start.IsZero() && out[i].err == nil {
			out[i].err = ctx.Err() // never sent
		}
	}
	return out
}

// receiver is the customer endpoint: it notes when each message id first arrives (when
// the request reaches the handler, its header read) and answers 200 at once.
type receiver struct {
	url string
	srv *http.Server

	mu       sync.Mutex
	first    map[int64]time.Time
	requests int
	dups     int // requests for an id already seen
	bad      int // requests without a readable id

	conns atomic.Int64 // connections the server opened to the receiver
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("receiver listen: %w", err)
	}
	r := &receiver{url: "http://" + ln.Addr().String() + receiverPath, first: map[int64]time.Time{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second, ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	var body struct {
		ID string `json:"id"`
	}
	err := json.NewDecoder(io.LimitReader(req.Body, 1<<20)).Decode(&body)
	id, convErr := strconv.ParseInt(body.ID, 10, 64)
	r.mu.Lock()
	r.requests++
	switch {
	case err != nil || convErr != nil:
		r.bad++
	case !r.first[id].IsZero():
		r.dups++
	default:
		r.first[id] = at
	}
	r.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (r *receiver) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// receiverCounts are the receiver's totals.
type receiverCounts struct{ requests, dups, bad, conns int }

func (r *receiver) counts() receiverCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	return receiverCounts{r.requests, r.dups, r.bad, int(r.conns.Load())}
}

// wait returns the first arrival of each id, waiting up to timeout for all of them; the
// error tells how many never came.
func (r *receiver) wait(ctx context.Context, ids []int64, timeout time.Duration) (map[int64]time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		got := make(map[int64]time.Time, len(ids))
		r.mu.Lock()
		for _, id := range ids {
			if t, ok := r.first[id]; ok {
				got[id] = t
			}
		}
		r.mu.Unlock()
		if len(got) == len(ids) {
			return got, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return got, fmt.Errorf("%d of %d deliveries did not arrive within %s", len(ids)-len(got), len(ids), timeout)
		}
		time.Sleep(dispatchPoll)
	}
}

// printDispatch writes the POST and delivery figures and the verdicts, and returns the
// POSTs' rate and latencies, the delivery rate and the p50 from POST start to receipt.
func printDispatch(w io.Writer, posts postResults, received map[int64]time.Time, rc receiverCounts, pending, failed int) (latencySummary, float64, time.Duration) {
	var (
		first, lastEnd, lastReceipt time.Time
		postLat, deliveryLat        []time.Duration
		errs                        int
		sample                      error
	)
	for _, p := range posts {
		if p.err != nil {
			errs++
			if sample == nil {
				sample = p.err
			}
			continue
		}
		if first.IsZero() || p.start.Before(first) {
			first = p.start
		}
		if p.end.After(lastEnd) {
			lastEnd = p.end
		}
		postLat = append(postLat, p.end.Sub(p.start))
		if at, ok := received[p.id]; ok {
			deliveryLat = append(deliveryLat, at.Sub(p.start))
			if at.After(lastReceipt) {
				lastReceipt = at
			}
		}
	}
	slices.Sort(postLat)
	slices.Sort(deliveryLat)
	rate := func(n int, end time.Time) float64 {
		if n == 0 || !end.After(first) {
			return 0
		}
		return float64(n) / end.Sub(first).Seconds()
	}
	postRate, deliveryRate := rate(len(postLat), lastEnd), rate(len(deliveryLat), lastReceipt)

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tcount\tper s\tp50\tp90\tp99\tmax\terrors\t\n", 32, "dispatch")
	fmt.Fprintf(tw, "%-*s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%d\t\n", 32, "POST /api/v2/messages", len(postLat), postRate,
		ms(pct(postLat, .50)), ms(pct(postLat, .90)), ms(pct(postLat, .99)), ms(pct(postLat, 1)), errs)
	fmt.Fprintf(tw, "%-*s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%d\t\n", 32, "POST start -> receiver 1st byte", len(deliveryLat), deliveryRate,
		ms(pct(deliveryLat, .50)), ms(pct(deliveryLat, .90)), ms(pct(deliveryLat, .99)), ms(pct(deliveryLat, 1)), len(postLat)-len(deliveryLat))
	tw.Flush()
	fmt.Fprintln(w)
	if sample != nil {
		fmt.Fprintf(w, "first POST error: %v\n", sample)
	}
	fmt.Fprintf(w, "POSTs took %s, the last delivery arrived %s after the first POST (%s after the last answer)\n",
		lastEnd.Sub(first).Round(time.Millisecond), lastReceipt.Sub(first).Round(time.Millisecond), lastReceipt.Sub(lastEnd).Round(time.Millisecond))
	fmt.Fprintf(w, "receiver (warm-up included): %d requests over %d connections, %d duplicates, %d without a readable id; server: %d deliveries still pending, %d failed\n",
		rc.requests, rc.conns, rc.dups, rc.bad, pending, failed)
	fmt.Fprintf(w, "deliveries: %.0f/s (target >= %.0f/s) %s\n", deliveryRate, targetDeliveryRate, verdict(deliveryRate >= targetDeliveryRate))
	p50 := pct(deliveryLat, .50)
	fmt.Fprintf(w, "p50 POST start -> receiver: %s ms (target <= %d ms) %s\n", fmt.Sprintf("%.2f", float64(p50)/float64(time.Millisecond)),
		targetDeliveryP50.Milliseconds(), verdict(len(deliveryLat) > 0 && p50 <= targetDeliveryP50))
	return latencySummary{rate: postRate, p50: pct(postLat, .50), p99: pct(postLat, .99)}, deliveryRate, p50
}

// pct returns the nearest-rank percentile p (0..1) of sorted durations.
func pct(sorted []time.Duration, p float64) time.Duration {
	r := result{latencies: make([]int64, len(sorted))}
	for i, d := range sorted {
		r.latencies[i] = int64(d)
	}
	return r.percentile(p)
}
