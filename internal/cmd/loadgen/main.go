// Command loadgen measures the throughput and latency of the answerdesk HTTP API against a
// realistic database.
//
// It seeds a temporary database with the demo data plus -messages generated messages for
// account 1001, starts the real answerdesk binary (-bin) on it, and drives a closed-loop
// load of -concurrency workers for -duration per scenario: message lists (plain, filtered,
// deep page), a message by id and the call-recording list. For comparison it also loads a
// "ceiling" server, a second process that answers every request with the bytes of a
// pre-fetched real list response from memory, with no authentication and no database: the
// upper bound for that response on this machine.
//
// Then, on a fresh demo database of its own, it measures message push (the External API dispatching docs page): the
// server is started with --dispatch-allow-private, account 1001's on-call contacts are
// replaced by one whose external_api method points at a receiver inside loadgen, and
// -dispatch messages are created through POST /api/v2/messages by -dispatch-concurrency
// workers. It reports deliveries per second and the latency from the start of each POST
// to the arrival of its delivery at the receiver (see dispatch.go).
//
// Usage:
//
//	go run ./internal/cmd/loadgen -bin bin/answerdesk [-duration 10s] [-concurrency 16]
//	go run ./internal/cmd/loadgen -bin bin/answerdesk -http=false [-dispatch 10000] [-dispatch-concurrency 8] [-dispatch-rate 0]
//	go run ./internal/cmd/loadgen -bin bin/answerdesk -wrk /usr/bin/wrk [-rounds 3] [-only company] -dispatch 0
//
// With -engine postgres, each database is a fresh one created on -postgres (dropped at the
// end) instead of a SQLite file; -replicas N starts N servers on it sharing one signing key,
// and spreads the reads, the POSTs and the API calls over them in turn, so that every
// replica's dispatcher claims deliveries. -compare runs list, by id and the dispatch
// scenario on SQLite, PostgreSQL and three PostgreSQL replicas and prints one table (make
// bench-pg; see engine.go):
//
//	go run ./internal/cmd/loadgen -bin bin/answerdesk -engine postgres -replicas 2
//	go run ./internal/cmd/loadgen -bin bin/answerdesk -compare [-postgres postgres://...]
//
// With -wrk, the read scenarios are measured by wrk instead, each endpoint against its own
// in-memory ceiling (an MCP tools/call against the same read over REST), alternating
// (make bench-http; see wrk.go).
//
// The load generator, the server and the ceiling share the machine's CPUs, so the figures
// are relative to this machine and to the generator's own cost.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/store"
)

const (
	accountNumber = "1001"
	ownerEmail    = "owner@acme.example"
	seedDays      = 60
	warmUp        = time.Second
	startTimeout  = 30 * time.Second
	stopTimeout   = 10 * time.Second
	maxErrorRate  = 0.01 // a scenario is aborted above this share of failed requests
	minForAbort   = 100  // requests before the error rate is judged
)

// Targets printed in the summary.
const (
	targetCeilingShare = 50.0 // per cent of the ceiling's throughput
	targetListP99      = 10 * time.Millisecond
	targetByIDRate     = 5000.0 // requests per second
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// config is everything loadgen can be told.
type config struct {
	bin         string
	messages    int
	duration    time.Duration
	concurrency int
	keep        bool
	cpuProfile  string
	// serverProfile: with -wrk, a directory for CPU profiles of the server (one per case,
	// taken during its first measured round through serve --pprof-addr); pprofAddr is that
	// address, chosen at start.
	serverProfile string
	pprofAddr     string
	// vsBin: with -wrk, another answerdesk binary (say, the previous build) measured in the
	// same alternating rounds on the same database, for a before/after under the same load.
	vsBin  string
	http   bool   // run the HTTP read scenarios
	wrk    string // path of wrk: measure with it against references (wrk.go)
	rounds int    // alternating wrk rounds per case
	only   string // with wrk: only the cases whose name contains this

	dispatch            int // messages of the dispatch scenario; 0 skips it
	dispatchConcurrency int
	dispatchRate        float64 // POSTs per second; 0: closed loop, as fast as they go

	engine   string // sqlite or postgres (engine.go)
	postgres string // the PostgreSQL server on which the databases are created
	replicas int    // servers started on the one database, the load spread over them
	compare  bool   // run sqlite, postgres and postgres with 3 replicas; print one table
	// serverFlags are more serve flags for every answerdesk server started (e.g. the pool's).
	serverFlags string

	// Hidden: run as the ceiling server, answering with this file's bytes.
	ceilingBody        string
	ceilingContentType string
}

// hiddenFlags are internal to the re-executed ceiling process and left out of the usage.
var hiddenFlags = map[string]bool{"ceiling-body": true, "ceiling-content-type": true}

func parseConfig(args []string) (*config, error) {
	var cfg config
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.StringVar(&cfg.bin, "bin", "", "path to the answerdesk binary (required)")
	fs.IntVar(&cfg.messages, "messages", 100000, "messages to generate for account "+accountNumber)
	fs.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured load per scenario")
	fs.IntVar(&cfg.concurrency, "concurrency", 16, "concurrent workers (and keep-alive connections)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory with the database")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the load generator (not the server) to this file")
	fs.StringVar(&cfg.serverProfile, "server-profile", "", "with -wrk: write a CPU profile of the server (serve --pprof-addr) during each endpoint's first round to this directory")
	fs.StringVar(&cfg.vsBin, "vs-bin", "", "with -wrk: also measure this other answerdesk binary (e.g. the previous build) in the same alternating rounds, on the same database")
	fs.BoolVar(&cfg.http, "http", true, "run the HTTP read scenarios (message lists, by id, call recordings)")
	fs.StringVar(&cfg.wrk, "wrk", "", "path of wrk: measure the endpoint table with wrk, alternating answerdesk and references (see wrk.go)")
	fs.IntVar(&cfg.rounds, "rounds", 3, "with -wrk: alternating rounds per endpoint (medians reported)")
	fs.StringVar(&cfg.only, "only", "", "with -wrk: only the endpoints whose name contains this text")
	fs.IntVar(&cfg.dispatch, "dispatch", 10000, "messages to POST in the dispatch scenario, each pushed to a receiver in loadgen (0: skip it)")
	fs.IntVar(&cfg.dispatchConcurrency, "dispatch-concurrency", 8, "concurrent POSTs in the dispatch scenario")
	fs.Float64Var(&cfg.dispatchRate, "dispatch-rate", 0, "POSTs per second in the dispatch scenario, at most (0: as fast as the workers go)")
	fs.StringVar(&cfg.engine, "engine", engineSQLite, "database engine: sqlite (a file) or postgres (a fresh database on -postgres, dropped at the end)")
	fs.StringVar(&cfg.postgres, "postgres", defaultPostgres, "with -engine postgres: the server on which to create the database")
	fs.IntVar(&cfg.replicas, "replicas", 1, "serve processes on the one database (different ports, one signing key); the load goes round-robin over them")
	fs.BoolVar(&cfg.compare, "compare", false, "run list, by id and the dispatch scenario on sqlite (1 replica), postgres (1) and postgres (3 replicas) and print one table")
	fs.StringVar(&cfg.serverFlags, "server-flags", "", "more serve flags for every answerdesk server, space-separated (e.g. \"--db-max-conns 8\")")
	fs.StringVar(&cfg.ceilingBody, "ceiling-body", "", "")
	fs.StringVar(&cfg.ceilingContentType, "ceiling-content-type", "", "")
	fs.Usage = func() { usage(fs) }
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.ceilingBody != "" {
		return &cfg, nil
	}
	switch {
	case cfg.bin == "":
		return nil, errors.New("-bin is required")
	case cfg.messages < 1:
		return nil, errors.New("-messages must be at least 1")
	case cfg.duration <= 0:
		return nil, errors.New("-duration must be positive")
	case cfg.concurrency < 1:
		return nil, errors.New("-concurrency must be at least 1")
	case cfg.dispatch < 0:
		return nil, errors.New("-dispatch must not be negative")
	case cfg.dispatchConcurrency < 1:
		return nil, errors.New("-dispatch-concurrency must be at least 1")
	case cfg.dispatchRate < 0:
		return nil, errors.New("-dispatch-rate must not be negative")
	case !cfg.http && cfg.dispatch == 0:
		return nil, errors.New("nothing to run: -http=false and -dispatch 0")
	case cfg.engine != engineSQLite && cfg.engine != enginePostgres:
		return nil, fmt.Errorf("-engine %q: want %s or %s", cfg.engine, engineSQLite, enginePostgres)
	case cfg.replicas < 1:
		return nil, errors.New("-replicas must be at least 1")
	case cfg.replicas > 1 && cfg.engine == engineSQLite:
		return nil, errors.New("-replicas above 1 needs -engine postgres: replicas share a PostgreSQL database")
	case cfg.replicas > 1 && cfg.wrk != "":
		return nil, errors.New("-wrk measures one server: leave -replicas at 1")
	case cfg.vsBin != "" && cfg.wrk == "":
		return nil, errors.New("-vs-bin needs -wrk")
	case cfg.serverProfile != "" && cfg.wrk == "":
		return nil, errors.New("-server-profile needs -wrk")
	case cfg.compare && (cfg.wrk != "" || !cfg.http || cfg.dispatch == 0):
		return nil, errors.New("-compare runs the reads and the dispatch scenario: no -wrk, -http=false or -dispatch 0")
	}
	return &cfg, nil
}

// usage prints the flags except the hidden ones.
func usage(fs *flag.FlagSet) {
	out := fs.Output()
	fmt.Fprintln(out, "usage: loadgen -bin PATH [flags]")
	visible := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	visible.SetOutput(out)
	fs.VisitAll(func(f *flag.Flag) {
		if !hiddenFlags[f.Name] {
			visible.Var(f.Value, f.Name, f.Usage)
			visible.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	visible.PrintDefaults()
}

func run(ctx context.Context, args []string) error {
	cfg, err := parseConfig(args)
	if err != nil {
		return err
	}
	if cfg.ceilingBody != "" {
		return serveCeiling(ctx, cfg.ceilingBody, cfg.ceilingContentType)
	}
	if cfg.cpuProfile != "" {
		stopProfile, err := startCPUProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	return runBenchmark(ctx, cfg)
}

func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// runBenchmark runs the HTTP scenarios, then the dispatch scenario, each against a server
// of its own (the first is stopped before the second starts), and prints the results.
func runBenchmark(ctx context.Context, cfg *config) (err error) {
	fmt.Printf("GOMAXPROCS=%d NumCPU=%d; the load generator shares these CPUs with the server and the ceiling\n",
		runtime.GOMAXPROCS(0), runtime.NumCPU())

	dir, err := os.MkdirTemp("", "answerdesk-loadgen-")
	if err != nil {
		return fmt.Errorf("create temporary directory: %w", err)
	}
	defer func() {
		if cfg.keep {
			fmt.Println("kept", dir)
			return
		}
		if rmErr := os.RemoveAll(dir); rmErr != nil && err == nil {
			err = fmt.Errorf("remove temporary directory: %w", rmErr)
		}
	}()
	if cfg.compare {
		return runCompare(ctx, cfg, dir)
	}
	if cfg.http {
		if err := runHTTPScenarios(ctx, cfg, dir, nil); err != nil {
			return err
		}
	}
	if cfg.dispatch > 0 {
		if err := runDispatch(ctx, cfg, filepath.Join(dir, "dispatch"), nil); err != nil {
			return fmt.Errorf("dispatch scenario: %w", err)
		}
	}
	return nil
}

// runHTTPScenarios seeds the database in dir (or on PostgreSQL), starts the server (or its
// replicas) and the ceiling, runs every read scenario and prints the results. With sum
// (-compare), only the list and by-id scenarios run, without a ceiling, and their results
// go into sum.
func runHTTPScenarios(ctx context.Context, cfg *config, dir string, sum *summary) error {
	dsn, drop, err := newDatabase(ctx, cfg, dir, "reads")
	if err != nil {
		return err
	}
	defer drop()
	fx, err := seed(ctx, dsn, cfg.messages)
	if err != nil {
		return err
	}

	client := newClient(cfg.concurrency)
	// No public rate limit: the load would be 429s after the first minute's 60 requests.
	extra := append([]string{"--public-rate-limit", "0"}, strings.Fields(cfg.serverFlags)...)
	if cfg.serverProfile != "" {
		if cfg.pprofAddr, err = freeLoopbackAddr(); err != nil {
			return err
		}
		extra = append(extra, "--pprof-addr", cfg.pprofAddr)
	}
	env := serverEnv(cfg)
	servers, err := startCluster(ctx, cfg, dsn, env, extra...)
	if err != nil {
		return err
	}
	defer servers.stop()
	bases := servers.bases()
	for _, b := range bases {
		if err := waitReady(ctx, client, b+"/readyz"); err != nil {
			return fmt.Errorf("answerdesk: %w", err)
		}
	}
	fmt.Printf("%s, %d server(s): %s\n", cfg.engine, len(bases), strings.Join(bases, " "))

	if cfg.wrk != "" {
		vsURL := ""
		if cfg.vsBin != "" {
			vs, err := startServer(ctx, cfg.vsBin, dsn, env, append([]string{"--public-rate-limit", "0"}, strings.Fields(cfg.serverFlags)...)...)
			if err != nil {
				return fmt.Errorf("-vs-bin: %w", err)
			}
			defer vs.stop()
			vsURL = "http://" + vs.addr
			if err := waitReady(ctx, client, vsURL+"/readyz"); err != nil {
				return fmt.Errorf("-vs-bin: %w", err)
			}
			fmt.Printf("-vs-bin %s: %s\n", cfg.vsBin, vsURL)
		}
		return runWrk(ctx, cfg, client, dir, bases[0], vsURL, fx.token, fx.messageID, servers[0].cmd.Process.Pid)
	}
	listPath := "/api/v2/messages?page_size=50"
	ceilingURL := ""
	if sum == nil {
		ceiling, err := startCeiling(ctx, client, dir, bases[0]+listPath, fx.token)
		if err != nil {
			return err
		}
		defer ceiling.stop()
		ceilingURL = "http://" + ceiling.addr
	}

	l := &loader{client: client, token: fx.token, concurrency: cfg.concurrency}
	var results []*result
	for _, sc := range scenarios(bases, ceilingURL, listPath, fx.messageID, time.Now()) {
		if sum != nil && sc.name != "list" && sc.name != "message by id" {
			continue
		}
		res, err := l.scenario(ctx, sc, cfg.duration)
		if err != nil {
			return err
		}
		results = append(results, res)
		if sum != nil && sc.name == "list" {
			sum.list = res
		} else if sum != nil {
			sum.byID = res
		}
	}
	printResults(os.Stdout, results, cfg.messages)
	return nil
}

// fixture is what the seeded database offers the load.
type fixture struct {
	token     string // API token of owner@acme.example
	messageID int64  // a message of account 1001
}

// seed creates the database at path with the demo data and n more messages for account
// 1001, and returns a new API token and a message id.
func seed(ctx context.Context, path string, n int) (*fixture, error) {
	start := time.Now()
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := demo.Seed(ctx, db, demo.Options{}); err != nil {
		return nil, fmt.Errorf("seed demo data: %w", err)
	}
	if err := demo.SeedMessages(ctx, db, accountNumber, n, seedDays, time.Now()); err != nil {
		return nil, fmt.Errorf("seed %d messages: %w", n, err)
	}
	user, err := store.NewUserService(db).FindUserByEmail(ctx, ownerEmail)
	if err != nil {
		return nil, fmt.Errorf("find %s: %w", ownerEmail, err)
	}
	_, token, err := store.NewTokenService(db).CreateToken(ctx, user.ID, "loadgen")
	if err != nil {
		return nil, fmt.Errorf("create token: %w", err)
	}
	id, err := middleMessageID(ctx, db, user.ID, n)
	if err != nil {
		return nil, err
	}
	fmt.Printf("seeded demo data + %d messages for account %s in %s\n", n, accountNumber, time.Since(start).Round(time.Millisecond))
	return &fixture{token: token, messageID: id}, nil
}

// middleMessageID returns the id of a message halfway down the user's list, so that the
// by-id test does not only touch the newest rows.
func middleMessageID(ctx context.Context, db *store.DB, userID int64, n int) (int64, error) {
	c, err := db.CallerForUser(ctx, userID, answerdesk.AllScopes)
	if err != nil {
		return 0, fmt.Errorf("caller for %s: %w", ownerEmail, err)
	}
	q := answerdesk.MessageQuery{Paging: answerdesk.Paging{Page: max(1, n/2), PageSize: 1}}
	list, _, err := store.NewMessageService(db).FindMessages(ctx, c, q)
	if err != nil {
		return 0, fmt.Errorf("pick a message: %w", err)
	}
	if len(list) == 0 {
		return 0, fmt.Errorf("pick a message: account %s has none", accountNumber)
	}
	return list[0].ID, nil
}

// scenario is one URL loaded for a while, on each replica: worker i loads urls[i%len(urls)].
type scenario struct {
	name string
	urls []string
}

// scenarios lists the loads in the order they run, the server's on every base URL, the
// ceiling's (left out when ceilingURL is empty) on its own; dates are relative to now.
func scenarios(bases []string, ceilingURL, listPath string, messageID int64, now time.Time) []scenario {
	const date = "01-02-2006" // MM-DD-YYYY
	today := now.UTC()
	filtered := fmt.Sprintf("%s&origin=call&start_date=%s&end_date=%s",
		listPath, today.AddDate(0, 0, -30).Format(date), today.Format(date))
	on := func(path string) []string {
		urls := make([]string, len(bases))
		for i, b := range bases {
			urls[i] = b + path
		}
		return urls
	}
	list := []scenario{
		{"list", on(listPath)},
		{"list (in-memory ceiling)", []string{ceilingURL + listPath}},
		{"list filtered (call, 30 d)", on(filtered)},
		{"list page 1000", on(listPath + "&page=1000")},
		{"message by id", on(fmt.Sprintf("/api/v2/messages/%d", messageID))},
		{"call-recordings", on("/api/v2/call-recordings?page_size=50")},
		{"public company", on("/api/v1/company")},
		{"public search", on("/api/v1/search?q=after+hours+plumbing&limit=10")},
		{"public search (typo)", on("/api/v1/search?q=recepionist&limit=10")},
	}
	if ceilingURL == "" {
		list = slices.DeleteFunc(list, func(sc scenario) bool { return strings.Contains(sc.name, "ceiling") })
	}
	return list
}

// newClient returns a client that keeps one idle connection per worker.
func newClient(concurrency int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: concurrency,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
		Timeout: 30 * time.Second,
	}
}

// waitReady polls url until it answers 200.
func waitReady(ctx context.Context, client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("readiness request: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready at %s: %w", url, ctx.Err())
		case <-tick.C:
		}
	}
}

// process is a started server subprocess.
type process struct {
	name   string
	cmd    *exec.Cmd
	addr   string     // the address it listens on
	exited chan error // receives the result of Wait
}

// startProcess starts cmd and waits for the "serving" log line on its stderr. Stderr is
// drained for the life of the process, so a chatty access log never blocks the server.
func startProcess(name string, cmd *exec.Cmd) (*process, error) {
	watch := newAddrWatcher()
	cmd.Stdout = io.Discard
	cmd.Stderr = watch
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	timeout := time.NewTimer(startTimeout)
	defer timeout.Stop()
	select {
	case p.addr = <-watch.addr:
		return p, nil
	case err := <-p.exited:
		// Wait has returned, so the watcher is no longer written to.
		return nil, fmt.Errorf("%s exited before listening (%v); its output:\n%s", name, err, watch.log.String())
	case <-timeout.C:
		p.stop()
		return nil, fmt.Errorf("%s did not log its address within %s", name, startTimeout)
	}
}

// stop sends SIGTERM and waits for the process to end, killing it if it takes too long.
func (p *process) stop() {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		fmt.Fprintf(os.Stderr, "loadgen: signal %s: %v\n", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(stopTimeout):
		fmt.Fprintf(os.Stderr, "loadgen: %s ignored SIGTERM for %s; killing it\n", p.name, stopTimeout)
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// startServer starts the answerdesk binary on the database with JSON logs, the environment
// env (nil: this process's) and the extra serve flags.
func startServer(ctx context.Context, bin, dbPath string, env []string, extra ...string) (*process, error) {
	args := append([]string{"serve", "--db", dbPath, "--addr", "127.0.0.1:0", "--log-format", "json"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	return startProcess("answerdesk", cmd)
}

// addrWatcher is the stderr of a server: it finds the address in the "serving" log line,
// keeping the output until then for error messages, and discards everything after.
type addrWatcher struct {
	addr    chan string
	found   bool
	pending []byte       // an incomplete line
	log     bytes.Buffer // output before the address
}

func newAddrWatcher() *addrWatcher { return &addrWatcher{addr: make(chan string, 1)} }

func (w *addrWatcher) Write(p []byte) (int, error) {
	if w.found {
		return len(p), nil
	}
	w.log.Write(p)
	w.pending = append(w.pending, p...)
	for {
		line, rest, ok := bytes.Cut(w.pending, []byte("\n"))
		if !ok {
			break
		}
		w.pending = rest
		if addr, ok := servingAddr(line); ok {
			w.found, w.pending = true, nil
			w.addr <- addr
			break
		}
	}
	return len(p), nil
}

// servingAddr returns the addr attribute of a "serving" log line in the JSON or the text
// format of log/slog.
func servingAddr(line []byte) (string, bool) {
	var rec struct {
		Msg  string `json:"msg"`
		Addr string `json:"addr"`
	}
	if json.Unmarshal(line, &rec) == nil {
		return rec.Addr, rec.Msg == "serving" && rec.Addr != ""
	}
	fields := strings.Fields(string(line))
	if !slices.Contains(fields, "msg=serving") {
		return "", false
	}
	for _, f := range fields {
		if addr, ok := strings.CutPrefix(f, "addr="); ok {
			return addr, true
		}
	}
	return "", false
}

// startCeiling fetches url once and starts a copy of this program that serves the response
// from memory.
func startCeiling(ctx context.Context, client *http.Client, dir, url, token string) (*process, error) {
	body, contentType, err := fetch(ctx, client, url, token)
	if err != nil {
		return nil, fmt.Errorf("fetch the ceiling response: %w", err)
	}
	bodyFile := filepath.Join(dir, "ceiling-body")
	if err := os.WriteFile(bodyFile, body, 0o600); err != nil {
		return nil, fmt.Errorf("write the ceiling response: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, self, "-ceiling-body", bodyFile, "-ceiling-content-type", contentType)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	// The ceiling exits when its stdin closes, that is when this process is gone.
	if _, err := cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("ceiling stdin: %w", err)
	}
	p, err := startProcess("ceiling", cmd)
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, client, "http://"+p.addr+"/"); err != nil {
		p.stop()
		return nil, fmt.Errorf("ceiling: %w", err)
	}
	fmt.Printf("ceiling serves %d bytes of %s\n", len(body), contentType)
	return p, nil
}

// fetch GETs url with the token and returns the body and content type of a 200 answer.
func fetch(ctx context.Context, client *http.Client, url, token string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %s: %s", url, resp.Status, snippet(body))
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// serveCeiling is the ceiling process: it answers every request with the file's bytes and
// logs its address like answerdesk does, until SIGTERM or the end of its stdin.
func serveCeiling(ctx context.Context, bodyFile, contentType string) error {
	body, err := os.ReadFile(bodyFile)
	if err != nil {
		return fmt.Errorf("read ceiling body: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("ceiling listen: %w", err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			_, _ = w.Write(body)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	parentGone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(parentGone)
	}()
	slog.New(slog.NewJSONHandler(os.Stderr, nil)).Info("serving", "addr", ln.Addr().String())

	select {
	case err := <-serveErr:
		return fmt.Errorf("ceiling: %w", err)
	case <-ctx.Done():
	case <-parentGone:
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("ceiling shutdown: %w", err)
	}
	return nil
}

// loader runs closed-loop loads: each worker sends its next request when the previous
// answer has been read.
type loader struct {
	client      *http.Client
	token       string
	concurrency int
}

// result is the outcome of one scenario.
type result struct {
	name      string
	requests  int
	errors    int
	bytes     int64         // response bytes of the successful requests
	elapsed   time.Duration // from the first request to the last answer
	latencies []int64       // nanoseconds, sorted
	aborted   bool          // stopped early: too many errors
	sample    string        // one failed answer or error
}

func (r *result) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// percentile returns the nearest-rank percentile p (0..1) of the latencies.
func (r *result) percentile(p float64) time.Duration {
	n := len(r.latencies)
	if n == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(n))) - 1
	return time.Duration(r.latencies[min(max(i, 0), n-1)])
}

// scenario warms up for a second, then measures sc for d.
func (l *loader) scenario(ctx context.Context, sc scenario, d time.Duration) (*result, error) {
	warm := l.load(ctx, sc, warmUp, 1024)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if warm.aborted {
		fmt.Printf("%s: aborted in warm-up, %d of %d requests failed; sample: %s\n", sc.name, warm.errors, warm.requests, warm.sample)
		return warm, nil
	}
	// Room for 1.5 times the warm-up rate, so that recording never reallocates.
	perWorker := int(warm.rate()*d.Seconds()*1.5)/l.concurrency + 1024
	res := l.load(ctx, sc, d, perWorker)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if res.aborted {
		fmt.Printf("%s: aborted, %d of %d requests failed; sample: %s\n", sc.name, res.errors, res.requests, res.sample)
	}
	return res, nil
}

// counters are shared by the workers of one load.
type counters struct {
	requests   atomic.Int64
	errors     atomic.Int64
	abort      atomic.Bool
	sampleOnce sync.Once
	sample     string
}

// fail counts a failed request, keeps the first as the sample, and calls the load off
// once more than maxErrorRate of the requests have failed.
func (c *counters) fail(sample string) {
	c.sampleOnce.Do(func() { c.sample = sample })
	errs, reqs := c.errors.Add(1), c.requests.Load()
	if reqs >= minForAbort && float64(errs) > maxErrorRate*float64(reqs) {
		c.abort.Store(true)
	}
}

// load runs the workers on sc for d, each recording latencies into a slice of capacity
// perWorker.
func (l *loader) load(ctx context.Context, sc scenario, d time.Duration, perWorker int) *result {
	var (
		c        counters
		wg       sync.WaitGroup
		received atomic.Int64
		lats     = make([][]int64, l.concurrency)
		start    = time.Now()
		endTime  = start.Add(d)
	)
	for i := range lats {
		lats[i] = make([]int64, 0, perWorker)
		wg.Go(func() {
			lats[i] = l.worker(ctx, sc.urls[i%len(sc.urls)], endTime, lats[i], &c, &received)
		})
	}
	wg.Wait()
	res := &result{
		name:     sc.name,
		requests: int(c.requests.Load()),
		errors:   int(c.errors.Load()),
		bytes:    received.Load(),
		elapsed:  time.Since(start),
		aborted:  c.abort.Load(),
		sample:   c.sample,
	}
	for _, w := range lats {
		res.latencies = append(res.latencies, w...)
	}
	slices.Sort(res.latencies)
	return res
}

// worker sends requests one after the other until endTime, the load is aborted or ctx is
// done, appending the latency of each successful one to lat.
func (l *loader) worker(ctx context.Context, url string, endTime time.Time, lat []int64, c *counters, received *atomic.Int64) []int64 {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		c.requests.Add(1)
		c.fail(err.Error())
		return lat
	}
	req.Header.Set("Authorization", "Bearer "+l.token)
	for ctx.Err() == nil && !c.abort.Load() && time.Now().Before(endTime) {
		start := time.Now()
		n, err := l.do(req)
		elapsed := time.Since(start)
		c.requests.Add(1)
		if err != nil {
			c.fail(err.Error())
			continue
		}
		received.Add(n)
		lat = append(lat, int64(elapsed))
	}
	return lat
}

// do sends req and reads the whole answer, so the connection is reused. A status other
// than 200 is an error carrying the start of the body.
func (l *loader) do(req *http.Request) (int64, error) {
	resp, err := l.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		_, _ = io.Copy(io.Discard, resp.Body)
		return 0, fmt.Errorf("%s: %s", resp.Status, snippet(body))
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return n, fmt.Errorf("read body: %w", err)
	}
	return n, nil
}

// snippet returns the start of a body for a message.
func snippet(body []byte) string {
	const limit = 300
	s := strings.TrimSpace(string(body))
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return s
}

// printResults writes the table and the summary against the targets.
func printResults(w io.Writer, results []*result, messages int) {
	names := make([]string, len(results))
	width := len("scenario")
	for i, r := range results {
		names[i] = r.name
		if r.aborted {
			names[i] += " (aborted)"
		}
		width = max(width, len(names[i]))
	}
	fmt.Fprintln(w)
	// Numbers align right; the names are padded so that they stay on the left.
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\trequests\treq/s\tp50\tp90\tp99\tmax\terrors\tbytes/resp\t\n", width, "scenario")
	for i, r := range results {
		var size int64
		if n := int64(len(r.latencies)); n > 0 {
			size = r.bytes / n
		}
		fmt.Fprintf(tw, "%-*s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%d\t%d\t\n", width, names[i], r.requests, r.rate(),
			ms(r.percentile(.50)), ms(r.percentile(.90)), ms(r.percentile(.99)), ms(r.percentile(1)), r.errors, size)
	}
	tw.Flush()
	fmt.Fprintln(w)

	byName := map[string]*result{}
	for _, r := range results {
		byName[r.name] = r
	}
	list, ceiling, byID := byName["list"], byName["list (in-memory ceiling)"], byName["message by id"]
	if list != nil && ceiling != nil && ceiling.rate() > 0 {
		share := 100 * list.rate() / ceiling.rate()
		fmt.Fprintf(w, "list throughput vs in-memory ceiling: %.1f%% (target >= %.0f%%) %s\n",
			share, targetCeilingShare, verdict(share >= targetCeilingShare))
	}
	if list != nil {
		p99 := list.percentile(.99)
		fmt.Fprintf(w, "p99 list at %s messages: %s ms (target < %d ms) %s\n", count(messages),
			strings.TrimSuffix(ms(p99), "ms"), targetListP99.Milliseconds(), verdict(p99 < targetListP99))
	}
	if byID != nil {
		fmt.Fprintf(w, "GET by id: %.0f req/s (target >= %.0f) %s\n", byID.rate(), targetByIDRate, verdict(byID.rate() >= targetByIDRate))
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

// count writes 100000 as 100k.
func count(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func verdict(ok bool) string {
	if ok {
		return "OK"
	}
	return "MISSED"
}

// freeLoopbackAddr returns a loopback address with a port free a moment ago.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}
