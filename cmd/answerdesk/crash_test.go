package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
	_ "modernc.org/sqlite"
)

// Figures of TestDispatchCrashRecovery.
const (
	crashMessages = 1000
	// Requests seen by the receiver before the server is killed: halfway through a batch of
	// the dispatcher (100), so that part of the batch in flight has reached the receiver and
	// part has not.
	crashKillAfter  = 350
	crashLease      = 2 * time.Second
	crashDrainLimit = 60 * time.Second
	crashHeader     = "X-Crash-Test"
)

// TestDispatchCrashRecovery kills the server with SIGKILL while it pushes 1,000 messages to
// an endpoint, restarts it on the same database and checks that every delivery arrives
// (at least once) and that only the deliveries in flight at the kill arrive twice.
func TestDispatchCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it twice")
	}
	dir := t.TempDir()
	bin := answerdeskBinary(t)

	rcv := newCrashReceiver(crashKillAfter)
	endpoint := httptest.NewServer(rcv)
	defer endpoint.Close()

	dbPath := filepath.Join(dir, "data", "crash.db")
	start := time.Now()
	keys := seedCrashDatabase(t, dbPath, endpoint.URL+"/hook", crashMessages)
	t.Logf("seeded %d messages with one delivery each in %s", len(keys), time.Since(start).Round(time.Millisecond))

	ro, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()

	// First run: killed once the receiver has seen crashKillAfter requests.
	first := startCrashServer(t, bin, dbPath)
	select {
	case <-rcv.kill:
	case err := <-first.exited:
		t.Fatalf("server exited before the kill: %v\n%s", err, first.log.String())
	case <-time.After(20 * time.Second):
		first.cmd.Process.Kill()
		t.Fatalf("the receiver saw %d requests in 20 s, want %d\n%s", rcv.total.Load(), crashKillAfter, first.log.String())
	}
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-first.exited
	atKill, seenAtKill := rcv.total.Load(), rcv.distinct()
	byStatus := deliveryStatuses(t, ro)
	byStatusAtKill := byStatus
	inFlight := byStatus["sending"]
	t.Logf("killed after %d requests; deliveries by status: %v", atKill, byStatus)
	if inFlight == 0 {
		t.Errorf("no delivery was in flight at the kill (statuses %v): the test did not crash mid-batch", byStatus)
	}
	// Every request the receiver saw belongs to a delivered or a leased delivery.
	if got := byStatus["delivered"] + inFlight; got < rcv.distinct() {
		t.Errorf("the receiver saw %d keys but only %d deliveries are delivered or sending", rcv.distinct(), got)
	}

	// Second run: takes the leased deliveries over once their lease expires.
	restart := time.Now()
	second := startCrashServer(t, bin, dbPath)
	deadline := time.Now().Add(crashDrainLimit)
	for {
		byStatus = deliveryStatuses(t, ro)
		if rcv.distinct() == crashMessages && byStatus["delivered"] == crashMessages {
			break
		}
		if time.Now().After(deadline) {
			second.cmd.Process.Kill()
			<-second.exited
			t.Fatalf("not drained %s after the restart: receiver saw %d of %d keys, statuses %v\n%s",
				crashDrainLimit, rcv.distinct(), crashMessages, byStatus, second.log.String())
		}
		select {
		case err := <-second.exited:
			t.Fatalf("server exited during the drain: %v\n%s", err, second.log.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	drain := time.Since(restart)
	terminate(t, second.cmd, second.exited, second.log.String)

	// Every delivery arrived, the duplicates are at most the deliveries in flight.
	counts, bad := rcv.snapshot()
	for _, b := range bad {
		t.Error(b)
	}
	var missing, dups int
	for _, k := range keys {
		switch n := counts[k]; {
		case n == 0:
			missing++
		case n > 1:
			dups++
		}
	}
	if len(counts) != len(keys) {
		t.Errorf("the receiver saw %d distinct keys, want %d", len(counts), len(keys))
	}
	if missing > 0 {
		t.Errorf("%d of %d deliveries never reached the receiver", missing, len(keys))
	}
	if dups > inFlight {
		t.Errorf("%d deliveries arrived more than once, more than the %d in flight at the kill", dups, inFlight)
	}
	var delivered, attemptRows, crashAttempts int
	if err := ro.QueryRow(`SELECT count(*) FROM messages WHERE status = 'delivered'`).Scan(&delivered); err != nil {
		t.Fatal(err)
	}
	if delivered != crashMessages {
		t.Errorf("%d messages are delivered, want %d", delivered, crashMessages)
	}
	if err := ro.QueryRow(`SELECT count(*) FROM dispatch_attempts`).Scan(&attemptRows); err != nil {
		t.Fatal(err)
	}
	// A delivery taken over after the crash counts the lost attempt, which has no row.
	if err := ro.QueryRow(`SELECT count(*) FROM dispatch_deliveries d
		WHERE d.attempts > (SELECT count(*) FROM dispatch_attempts a WHERE a.delivery_id = d.id)`).Scan(&crashAttempts); err != nil {
		t.Fatal(err)
	}
	t.Logf("in flight at kill: %d (%d of them had reached the receiver); duplicates: %d; requests: %d (%d before the kill); time to drain after restart: %s",
		inFlight, seenAtKill-byStatusAtKill["delivered"], dups, rcv.total.Load(), atKill, drain.Round(time.Millisecond))
	t.Logf("attempt rows: %d; deliveries whose attempts counter exceeds their attempt rows (the lost attempt): %d",
		attemptRows, crashAttempts)
}

// seedCrashDatabase creates account 1001 with a user, an on-call contact pushing to url and
// n messages, and returns the deliveries' uuids. The secret box uses the key the server
// will load from signing.key beside the database.
func seedCrashDatabase(t *testing.T, dbPath, url string, n int) []string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	if err := os.WriteFile(filepath.Join(filepath.Dir(dbPath), "signing.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	if db.Secrets, err = answerdesk.NewSecretBox(key); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateAccount(ctx, "1001", "Crash Test Plumbing", ""); err != nil {
		t.Fatal(err)
	}
	users := store.NewUserService(db)
	users.Cost = 4 // bcrypt.MinCost
	u, err := users.CreateUser(ctx, &answerdesk.UserCreate{Email: "crash@example.com", Password: "crash-test-password", AccountNumbers: []string{"1001"}})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := db.CallerForUser(ctx, u.ID, answerdesk.AllScopes)
	if err != nil {
		t.Fatal(err)
	}
	// A sealed header: the server must open it with the key it loads from the file.
	contact, err := answerdesk.ParseOnCallContactCreate([]byte(fmt.Sprintf(`{"account_number": "1001", "name": "Crash receiver",
		"delivery_methods": [{"type": "external_api", "url": %q, "payload_type": "JSON",
		"data": [{"field": "id", "value": "{{message.id}}"}], "headers": {%q: "sealed-value"}}]}`, url, crashHeader)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewDispatchService(db).CreateOnCallContact(ctx, caller, contact); err != nil {
		t.Fatal(err)
	}
	messages := store.NewMessageService(db)
	for i := range n {
		req, err := answerdesk.ParseMessageCreate(json.RawMessage(fmt.Sprintf(`{"content": "Crash test message %d", "account_number": "1001"}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := messages.CreateMessage(ctx, caller, req); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	ro, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rows, err := ro.Query(`SELECT uuid FROM dispatch_deliveries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(keys) != n {
		t.Fatalf("%d deliveries for %d messages, want one each", len(keys), n)
	}
	return keys
}

// deliveryStatuses counts the deliveries by status.
func deliveryStatuses(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query(`SELECT status, count(*) FROM dispatch_deliveries GROUP BY status`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// crashReceiver is the customer endpoint: it counts requests per Idempotency-Key and
// answers 200 after 20–50 ms, so that many requests are in flight at once.
type crashReceiver struct {
	total    atomic.Int64
	killAt   int64
	kill     chan struct{}
	killOnce sync.Once

	mu     sync.Mutex
	counts map[string]int
	bad    []string
}

func newCrashReceiver(killAt int64) *crashReceiver {
	return &crashReceiver{killAt: killAt, kill: make(chan struct{}), counts: map[string]int{}}
}

func (c *crashReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Header.Get("Idempotency-Key")
	var problem string
	var payload struct {
		ID string `json:"id"`
	}
	switch {
	case key == "":
		problem = "a request without Idempotency-Key"
	case r.Header.Get(crashHeader) != "sealed-value":
		problem = fmt.Sprintf("delivery %s: header %s is %q, want the sealed value", key, crashHeader, r.Header.Get(crashHeader))
	case json.Unmarshal(body, &payload) != nil || payload.ID == "":
		problem = fmt.Sprintf("delivery %s: body %s has no id", key, body)
	case !strings.HasPrefix(r.Header.Get("User-Agent"), "answerdesk-dispatch/"):
		problem = fmt.Sprintf("delivery %s: User-Agent %q", key, r.Header.Get("User-Agent"))
	}
	c.mu.Lock()
	if key != "" {
		c.counts[key]++
	}
	if problem != "" && len(c.bad) < 10 {
		c.bad = append(c.bad, problem)
	}
	c.mu.Unlock()
	if c.total.Add(1) >= c.killAt {
		c.killOnce.Do(func() { close(c.kill) })
	}
	select {
	case <-time.After(time.Duration(20+mathrand.IntN(31)) * time.Millisecond):
	case <-r.Context().Done():
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(`{"ok":true}`))
}

func (c *crashReceiver) distinct() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.counts)
}

func (c *crashReceiver) snapshot() (map[string]int, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	counts := make(map[string]int, len(c.counts))
	for k, n := range c.counts {
		counts[k] = n
	}
	return counts, append([]string(nil), c.bad...)
}

// crashServer is a running "answerdesk serve" whose stderr is kept for failure messages.
type crashServer struct {
	cmd    *exec.Cmd
	log    *lockedBuffer
	exited chan error
}

// startCrashServer starts the server on the database and waits for its "serving" line.
func startCrashServer(t *testing.T, bin, dbPath string) *crashServer {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--db", dbPath, "--addr", "127.0.0.1:0", "--dispatch-allow-private",
		"--dispatch-lease", crashLease.String(), "--log-format", "json")
	cmd.Dir = filepath.Dir(dbPath)
	log := &lockedBuffer{serving: make(chan struct{})}
	cmd.Stdout = io.Discard
	cmd.Stderr = log // copied by exec's goroutine for the life of the process
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &crashServer{cmd: cmd, log: log, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // ErrProcessDone once it has exited
	select {
	case <-log.serving:
	case err := <-s.exited:
		t.Fatalf("server exited at start: %v\n%s", err, log.String())
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no serving line in 30 s\n%s", log.String())
	}
	return s
}

// lockedBuffer keeps a server's stderr and closes serving at its "serving" log line.
type lockedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	line    []byte
	serving chan struct{}
	seen    bool
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() < 1<<20 {
		b.buf.Write(p)
	}
	if b.seen {
		return len(p), nil
	}
	b.line = append(b.line, p...)
	for {
		line, rest, ok := bytes.Cut(b.line, []byte("\n"))
		if !ok {
			break
		}
		b.line = rest
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "serving" && rec.Addr != "" {
			b.seen, b.line = true, nil
			close(b.serving)
			break
		}
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
