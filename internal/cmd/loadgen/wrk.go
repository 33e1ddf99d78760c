package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// The wrk mode (-wrk PATH) measures: wrk (threads 2, -concurrency
// connections) against the answerdesk binary and against a reference in alternation,
// -rounds times, so both see the same minutes of a shared machine. The reference of a read
// is a ceiling process answering the same bytes from memory; the reference of an MCP
// tools/call is the same read over REST on the same server. Reported: median req/s and
// p99 of each side, and the ratio of the medians.

// wrkCase is one measured request and its reference.
type wrkCase struct {
	name    string
	path    string  // on answerdesk
	mcp     string  // when set, a raw JSON-RPC tools/call body POSTed to path (an MCP endpoint)
	refREST string  // when set, the reference is this GET on answerdesk, not a ceiling
	target  float64 // the share of the reference to reach, in per cent
}

// wrkRun is one wrk run's figures.
type wrkRun struct {
	rate   float64
	p99    time.Duration
	non2xx int
}

// wrkCases lists the cases; the lists' target is the engine's (50% of the
// ceiling on SQLite, 25% on PostgreSQL).
func wrkCases(engine string, messageID int64) []wrkCase {
	const list = "/api/v2/messages?page_size=50"
	listTarget := 50.0
	if engine == enginePostgres {
		listTarget = 25
	}
	return []wrkCase{
		{name: "GET " + list + " (100k)", path: list, target: listTarget},
		{name: "GET /api/v2/messages/{id}", path: fmt.Sprintf("/api/v2/messages/%d", messageID), target: 50},
		{name: "GET /api/v2/call-recordings?page_size=50", path: "/api/v2/call-recordings?page_size=50", target: listTarget},
		{name: "GET /api/v1/company", path: "/api/v1/company", target: 50},
		{name: "GET /api/v1/search?q=answering+service", path: "/api/v1/search?q=answering+service", target: 50},
		{name: "MCP tools/call get_company_info vs /api/v1/company", path: "/mcp/public", refREST: "/api/v1/company", target: 70,
			mcp: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_company_info","arguments":{}}}`},
	}
}

// runWrk runs every case against the server at serverURL, each with its own reference.
// With vsURL (-vs-bin), each round also loads that other server with the same request.
func runWrk(ctx context.Context, cfg *config, client *http.Client, dir, serverURL, vsURL, token string, messageID int64, serverPID int) error {
	idle, err := idleRSS(ctx, serverPID)
	if err != nil {
		return err
	}
	peak := sampleRSS(serverPID)
	type row struct {
		c            wrkCase
		srv, ref, vs []wrkRun
	}
	var rows []row
	for _, c := range wrkCases(cfg.engine, messageID) {
		if !strings.Contains(c.name, cfg.only) {
			continue
		}
		srvScript, refURL := filepath.Join(dir, "srv.lua"), ""
		var stopRef func()
		vsScript := filepath.Join(dir, "vs.lua")
		switch {
		case c.mcp != "":
			for _, s := range []struct{ url, script string }{{serverURL, srvScript}, {vsURL, vsScript}} {
				if s.url == "" {
					continue
				}
				session, err := mcpSession(ctx, client, s.url+c.path)
				if err != nil {
					return err
				}
				if err := writeLua(s.script, "POST", c.mcp, map[string]string{"Content-Type": "application/json",
					"Accept": "application/json, text/event-stream", "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}); err != nil {
					return err
				}
			}
			refURL = serverURL + c.refREST
		default:
			if err := writeLua(srvScript, "GET", "", map[string]string{"Authorization": "Bearer " + token}); err != nil {
				return err
			}
			vsScript = srvScript
			ceiling, err := startCeiling(ctx, client, dir, serverURL+c.path, token)
			if err != nil {
				return err
			}
			stopRef, refURL = ceiling.stop, "http://"+ceiling.addr+c.path
		}
		refScript := filepath.Join(dir, "ref.lua")
		if err := writeLua(refScript, "GET", "", nil); err != nil {
			return err
		}
		r := row{c: c}
		for round := range cfg.rounds {
			var profiled chan error
			if round == 0 && cfg.serverProfile != "" {
				profiled = make(chan error, 1)
				go func() { profiled <- serverProfile(ctx, cfg, c.name) }()
			}
			s, err := wrk(ctx, cfg, srvScript, serverURL+c.path)
			if profiled != nil {
				if perr := <-profiled; perr != nil {
					fmt.Fprintln(os.Stderr, "loadgen:", perr)
				}
			}
			if err != nil {
				return err
			}
			f, err := wrk(ctx, cfg, refScript, refURL)
			if err != nil {
				return err
			}
			r.srv, r.ref = append(r.srv, s), append(r.ref, f)
			if vsURL != "" {
				v, err := wrk(ctx, cfg, vsScript, vsURL+c.path)
				if err != nil {
					return err
				}
				r.vs = append(r.vs, v)
			}
		}
		if stopRef != nil {
			stopRef()
		}
		rows = append(rows, r)
		fmt.Printf("%s: answerdesk %.0f req/s, reference %.0f req/s\n", c.name, median(r.srv).rate, median(r.ref).rate)
	}
	loaded := peak()

	fmt.Printf("\nwrk -t2 -c%d -d%s, %d alternating rounds, medians:\n", cfg.concurrency, cfg.duration, cfg.rounds)
	tw := tabwriter.NewWriter(os.Stdout, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tanswerdesk req/s\tp99\treference req/s\tp99\tshare\ttarget\t")
	for _, r := range rows {
		s, f := median(r.srv), median(r.ref)
		share := 100 * s.rate / f.rate
		errs := ""
		for _, run := range append(slices.Clone(r.srv), r.ref...) {
			if run.non2xx > 0 {
				errs = fmt.Sprintf(" (%d non-2xx!)", run.non2xx)
			}
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%.0f\t%s\t%.1f%%\t>= %.0f%% %s%s\t\n", r.c.name, s.rate, ms(s.p99), f.rate, ms(f.p99),
			share, r.c.target, verdict(share >= r.c.target), errs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if vsURL != "" {
		fmt.Printf("\n-vs-bin %s in the same rounds (its share of the same reference; MCP: of this binary's REST read):\n", cfg.vsBin)
		tw := tabwriter.NewWriter(os.Stdout, 2, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "endpoint\tthis req/s\tvs-bin req/s\tp99\tvs-bin share\tthis / vs-bin\t")
		for _, r := range rows {
			s, f, v := median(r.srv), median(r.ref), median(r.vs)
			fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%s\t%.1f%%\t%.2f\t\n", r.c.name, s.rate, v.rate, ms(v.p99), 100*v.rate/f.rate, s.rate/v.rate)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Printf("answerdesk RSS: idle %d MB (target <= 80), peak under the loads %d MB (target <= 150)\n", idle/1024, loaded/1024)
	return nil
}

// median returns the run with the median rate (the lower middle one), p99 taken from it.
func median(runs []wrkRun) wrkRun {
	s := slices.Clone(runs)
	slices.SortFunc(s, func(a, b wrkRun) int {
		switch {
		case a.rate < b.rate:
			return -1
		case a.rate > b.rate:
			return 1
		}
		return 0
	})
	return s[(len(s)-1)/2]
}

// writeLua writes a wrk script setting the method, body and headers of every request.
func writeLua(path, method, body string, headers map[string]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %q\n", method)
	if body != "" {
		fmt.Fprintf(&b, "wrk.body = %q\n", body)
	}
	for k, v := range headers {
		fmt.Fprintf(&b, "wrk.headers[%q] = %q\n", k, v)
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

var (
	wrkRate    = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkP99     = regexp.MustCompile(`\n\s+99%\s+([0-9.]+)(us|ms|s)\b`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSockErr = regexp.MustCompile(`Socket errors: .*`)
)

// wrk runs one load and parses its summary.
func wrk(ctx context.Context, cfg *config, script, url string) (wrkRun, error) {
	cmd := exec.CommandContext(ctx, cfg.wrk, "-t2", "-c"+strconv.Itoa(cfg.concurrency),
		"-d"+strconv.Itoa(max(1, int(cfg.duration.Seconds())))+"s", "--latency", "-s", script, url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return wrkRun{}, fmt.Errorf("wrk %s: %w: %s", url, err, out)
	}
	var r wrkRun
	m := wrkRate.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("wrk %s: no Requests/sec in %s", url, out)
	}
	r.rate, _ = strconv.ParseFloat(string(m[1]), 64)
	if m := wrkP99.FindSubmatch(out); m != nil {
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[string(m[2])]
		r.p99 = time.Duration(v * float64(unit))
	}
	if m := wrkNon2xx.FindSubmatch(out); m != nil {
		r.non2xx, _ = strconv.Atoi(string(m[1]))
	}
	if m := wrkSockErr.Find(out); m != nil {
		fmt.Fprintf(os.Stderr, "wrk %s: %s\n", url, m)
	}
	return r, nil
}

// mcpSession initializes an MCP session and returns its id, for raw tools/call requests.
func mcpSession(ctx context.Context, client *http.Client, url string) (string, error) {
	post := func(body, session string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return nil, fmt.Errorf("MCP %s: %s: %s", url, resp.Status, snippet(b))
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		return resp, nil
	}
	resp, err := post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"loadgen","version":"1"}}}`, "")
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	session := resp.Header.Get("Mcp-Session-Id")
	if _, err := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); err != nil {
		return "", fmt.Errorf("initialized: %w", err)
	}
	return session, nil
}

// idleSettle is how long after readiness the idle RSS is read: serve returns its start-up
// garbage to the OS once when it starts listening and again a second later (after the
// workers' first passes), so a reading at readiness counts up to some 15 MB of garbage
// that an idle server no longer holds.
const idleSettle = 2 * time.Second

// idleRSS waits for the server's start-up to settle and returns its VmRSS in KB.
func idleRSS(ctx context.Context, pid int) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(idleSettle):
	}
	return rssKB(pid, "VmRSS"), nil
}

// sampleRSS samples the VmRSS of pid every 100 ms until the returned func is called, which
// returns the largest sample in KB. (VmHWM would count the start-up's peak, not the loads'.)
func sampleRSS(pid int) (stop func() int) {
	done, result := make(chan struct{}), make(chan int)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		peak := rssKB(pid, "VmRSS")
		for {
			select {
			case <-done:
				result <- max(peak, rssKB(pid, "VmRSS"))
				return
			case <-tick.C:
				peak = max(peak, rssKB(pid, "VmRSS"))
			}
		}
	}()
	return func() int {
		close(done)
		return <-result
	}
}

// rssKB reads a field (VmRSS, VmHWM) of /proc/PID/status, in KB; 0 when unreadable.
func rssKB(pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// serverProfile fetches a CPU profile of the server covering most of one wrk run and writes
// it to cfg.serverProfile, named after the case.
func serverProfile(ctx context.Context, cfg *config, name string) error {
	secs := max(1, int(cfg.duration.Seconds())-1)
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", cfg.pprofAddr, secs)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("server profile: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("server profile: %s %v", resp.Status, err)
	}
	file := strings.Trim(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(name, "-"), "-") + ".pprof"
	if err := os.MkdirAll(cfg.serverProfile, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.serverProfile, file), b, 0o644)
}
