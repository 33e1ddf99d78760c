package dispatch_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// memWatch samples the Go heap while an attack runs: the peak of HeapInuse and the bytes
// allocated in all, both relative to the moment it started.
type memWatch struct {
	start      runtime.MemStats
	peakInuse  atomic.Uint64
	stop, done chan struct{}
}

func watchMemory() *memWatch {
	runtime.GC()
	w := &memWatch{stop: make(chan struct{}), done: make(chan struct{})}
	runtime.ReadMemStats(&w.start)
	w.peakInuse.Store(w.start.HeapInuse)
	go func() {
		defer close(w.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > w.peakInuse.Load() {
					w.peakInuse.Store(m.HeapInuse)
				}
			}
		}
	}()
	return w
}

// finish stops sampling and returns the peak heap growth and the bytes allocated.
func (w *memWatch) finish() (peakGrowth, allocated uint64) {
	close(w.stop)
	<-w.done
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	peak := max(w.peakInuse.Load(), m.HeapInuse)
	if peak > w.start.HeapInuse {
		peakGrowth = peak - w.start.HeapInuse
	}
	return peakGrowth, m.TotalAlloc - w.start.TotalAlloc
}

// TestMergeVariableAmplification: a method with the most data fields allowed, each value
// the longest allowed and made of nothing but {{message.content}}, meets a 20 KB message.
// Unbounded, that rendered a 526 MB body (3.4 GB of memory). The body the endpoint
// receives is at most 256 KiB, a warning on the delivery says values were cut, and the
// heap grows by far less than 200 MB while the message is created, rendered and
// dispatched.
func TestMergeVariableAmplification(t *testing.T) {
	for _, payloadType := range []string{answerdesk.PayloadJSON, answerdesk.PayloadForm} {
		t.Run(strings.ToLower(payloadType)+"_body_and_memory_stay_bounded", func(t *testing.T) {
			app := testapp.New(t)
			rcv := newCountingReceiver(t)
			const variable = "{{message.content}}"
			value := strings.Repeat(variable, answerdesk.MaxPayloadValueLength/len(variable))
			contact := fmt.Sprintf(`{"account_number":"1001","name":"Amplifier","delivery_methods":[%s]}`,
				limitMethod(rcv.URL, payloadType, value))
			// Through the API, so the method is one the validation accepts.
			if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, contact); r.Status != 200 {
				t.Fatalf("create the contact: %d %.300s", r.Status, r.Body)
			}
			d := newDispatcher(app)

			mem := watchMemory()
			r := app.Do(t, "POST", "/api/v2/messages", app.Alice.Token, map[string]any{"message": map[string]any{"content": amplifiedContent()}})
			if r.Status != 200 {
				t.Fatalf("create the message: %d %.300s", r.Status, r.Body)
			}
			dispatchTick(t, d)
			peak, allocated := mem.finish()
			t.Logf("heap peak growth %.1f MB, allocated %.1f MB", float64(peak)/1e6, float64(allocated)/1e6)

			const memLimit = 200 << 20
			if peak > memLimit || allocated > memLimit {
				t.Errorf("heap grew by %d bytes at peak and %d bytes were allocated, want both under %d", peak, allocated, memLimit)
			}
			if got := rcv.sizes(); len(got) != 1 || got[0] > answerdesk.MaxPayloadBytes || got[0] < answerdesk.MaxPayloadBytes-64 {
				t.Fatalf("the endpoint received bodies of %v bytes, want one of at most (and close to) %d", got, answerdesk.MaxPayloadBytes)
			}
			list := deliveries(t, app, lastMessageID(t, app.DB.SQL()))
			if len(list) != 1 || list[0].Status != answerdesk.DispatchDelivered ||
				!strings.Contains(strings.Join(list[0].Warnings, "\n"), "values were cut") {
				t.Fatalf("delivery %+v, want delivered with a warning that values were cut", list[0])
			}
		})
	}
}

// TestOneMessageAtTheLimits: an account configured to every limit (100 on-call contacts over
// the 10 escalation levels, 10 external_api methods each, 50 fields of {{message.content}}
// each) takes one 20 KB message, which escalates through every level. Its 1,000 deliveries
// together carry at most 8 MiB of body (each at most its share), and the message with all
// its deliveries and attempts adds at most 16 MiB to the database: once every delivery is
// delivered, and once every one has failed all its attempts against an endpoint that
// answers each with a 503 and a long body. Unbounded, the same message sent 247 MiB and
// stored 250-500 MiB.
func TestOneMessageAtTheLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
	}{{"delivered", http.StatusOK}, {"every_attempt_failed", http.StatusServiceUnavailable}} {
		t.Run(tc.name, func(t *testing.T) {
			app := testapp.New(t)
			rcv := newCountingReceiver(t)
			rcv.status = tc.status
			configureAtTheLimits(t, app, rcv.URL, "{{message.content}}", answerdesk.MaxEscalationLevel)
			before := databaseBytes(t, app)
			d := newDispatcher(app)
			d.Batch = 200
			r := app.Do(t, "POST", "/api/v2/messages", app.Alice.Token, map[string]any{"message": map[string]any{"content": amplifiedContent()}})
			if r.Status != 200 {
				t.Fatalf("create the message: %d %.300s", r.Status, r.Body)
			}
			id := lastMessageID(t, app.DB.SQL())
			want := answerdesk.MaxOnCallContactsPerAccount * answerdesk.MaxDeliveryMethodsPerContact
			// Each round sends what is due, then moves past the longest backoff and the
			// escalation after it, until no delivery is left to try.
			for round := 0; ; round++ {
				if round > 50 {
					t.Fatal("deliveries still open after 50 rounds")
				}
				for {
					n, err := d.Tick(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					if n == 0 {
						break
					}
				}
				var open int
				if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM dispatch_deliveries WHERE status IN ('pending', 'sending')`).Scan(&open); err != nil {
					t.Fatal(err)
				}
				var escalating bool
				if err := app.DB.SQL().QueryRow(`SELECT next_escalation_at IS NOT NULL FROM messages WHERE id = ?`, id).Scan(&escalating); err != nil {
					t.Fatal(err)
				}
				if open == 0 && !escalating {
					break
				}
				app.Clock.Advance(8 * time.Hour)
			}
			sizes := rcv.sizes()
			total, largest := 0, 0
			for _, n := range sizes {
				total += n
				largest = max(largest, n)
			}
			var shares int64
			var deliveries, attempts int
			if err := app.DB.SQL().QueryRow(`SELECT sum(body_limit), count(*), (SELECT count(*) FROM dispatch_attempts)
				FROM dispatch_deliveries WHERE message_id = ?`, id).Scan(&shares, &deliveries, &attempts); err != nil {
				t.Fatal(err)
			}
			rounds := 1
			if tc.status != http.StatusOK {
				rounds = len(dispatch.DefaultDispatchBackoff) + 1
			}
			t.Logf("%d requests, %d bytes in all, the largest %d; shares %d bytes; %d deliveries, %d attempts",
				len(sizes), total, largest, shares, deliveries, attempts)
			if deliveries != want || len(sizes) != want*rounds || attempts != want*rounds {
				t.Errorf("%d deliveries, %d requests, %d attempts; want %d deliveries of %d attempts each", deliveries, len(sizes), attempts, want, rounds)
			}
			if total > rounds*answerdesk.MaxMessagePayloadBytes || largest > answerdesk.PayloadShare(0, want)+answerdesk.MaxEscalationLevel {
				t.Errorf("the bodies came to %d bytes, the largest %d; want at most %d bytes a round, each about an equal share",
					total, largest, answerdesk.MaxMessagePayloadBytes)
			}
			if shares > answerdesk.MaxMessagePayloadBytes {
				t.Errorf("the deliveries' shares add up to %d bytes, more than %d", shares, answerdesk.MaxMessagePayloadBytes)
			}
			grown := databaseBytes(t, app) - before
			t.Logf("the database grew by %.1f MiB", float64(grown)/(1<<20))
			if grown > 16<<20 {
				t.Errorf("one message grew the database by %d bytes, want at most 16 MiB", grown)
			}
		})
	}
}

// countingReceiver is an endpoint that keeps the size of each body only. It answers status
// (200 unless set) and, to a failure, 4 KiB of body for the attempt's excerpt.
type countingReceiver struct {
	*httptest.Server
	status   int
	mu       sync.Mutex
	received []int
}

func newCountingReceiver(t testing.TB) *countingReceiver {
	r := &countingReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n, _ := io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.received = append(r.received, int(n))
		r.mu.Unlock()
		if r.status != 0 && r.status != http.StatusOK {
			w.WriteHeader(r.status)
			_, _ = io.WriteString(w, strings.Repeat("upstream unavailable ", 200))
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *countingReceiver) sizes() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.received...)
}

// limitMethod is an external_api method with the most fields allowed, each of value.
func limitMethod(url, payloadType, value string) string {
	fields := make([]string, answerdesk.MaxPayloadFields)
	for i := range fields {
		fields[i] = fmt.Sprintf(`{"field":"f%02d","value":%q}`, i, value)
	}
	return fmt.Sprintf(`{"url":%q,"payload_type":%q,"data":[%s]}`, url, payloadType, strings.Join(fields, ","))
}

// configureAtTheLimits gives account 1001 the most on-call contacts allowed, spread evenly
// over levels escalation levels, each with the most methods allowed to url, each method
// with the most fields allowed, of value.
func configureAtTheLimits(t testing.TB, app *testapp.App, url, value string, levels int) {
	t.Helper()
	methods := make([]string, answerdesk.MaxDeliveryMethodsPerContact)
	for i := range methods {
		methods[i] = limitMethod(fmt.Sprintf("%s/in/%d", url, i), answerdesk.PayloadJSON, value)
	}
	perLevel := answerdesk.MaxOnCallContactsPerAccount / levels
	for i := range answerdesk.MaxOnCallContactsPerAccount {
		contact := fmt.Sprintf(`{"account_number":"1001","name":"Amplifier %d","escalation_level":%d,"delivery_methods":[%s]}`,
			i, i/perLevel+1, strings.Join(methods, ","))
		if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, contact); r.Status != 200 {
			t.Fatalf("create a contact of %d bytes: %d %.300s", len(contact), r.Status, r.Body)
		}
	}
}

// amplifiedContent is a 20 KB message content of valid UTF-8 with characters that JSON and
// form encoding both lengthen.
func amplifiedContent() string {
	content := strings.Repeat("Caller Zoë says the water heater \"leaks\" & the tank is ☎ hot. ", 400)[:20000]
	return strings.ToValidUTF8(content, "")
}

// databaseBytes is the size of the App's database: SQLite's pages (the WAL's included), or
// PostgreSQL's database on disk.
func databaseBytes(t testing.TB, app *testapp.App) int64 {
	t.Helper()
	db := app.DB.SQL()
	var n int64
	if app.DB.Postgres() {
		if _, err := db.Exec(`CHECKPOINT`); err != nil {
			t.Logf("checkpoint: %v", err)
		}
		if err := db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var pages, size int64
	if err := db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	return pages * size
}

func lastMessageID(t testing.TB, db *sql.DB) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRow(`SELECT max(id) FROM messages`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// BenchmarkAmplificationWorstCase creates one 20 KB message on an account configured to the
// limits, all at one level: 100 on-call contacts with 10 methods each, of 50 fields that
// repeat {{message.content}} as often as a 1 MiB request body allows (100 times a value),
// and dispatches its 1,000 deliveries to a local endpoint, while another account creates
// messages one after another. Per message it reports how long the create took, the
// other account's creates while the create and the dispatch ran (p95 and max), the
// bytes the endpoint received, and how much the database grew. ANSWERDESK_TEST_ENGINE
// chooses the engine, as for the tests.
func BenchmarkAmplificationWorstCase(b *testing.B) {
	app := testapp.New(b)
	rcv := newCountingReceiver(b)
	configureAtTheLimits(b, app, rcv.URL, strings.Repeat("{{message.content}}", 100), 1)
	d := newDispatcher(app)
	content := amplifiedContent()
	var createTime time.Duration
	var others []time.Duration
	var grown int64
	for b.Loop() {
		b.StopTimer()
		before, sent := databaseBytes(b, app), len(rcv.sizes())
		stop, done := make(chan struct{}), make(chan []time.Duration)
		go func() { done <- createUntil(b, app, stop) }()
		b.StartTimer()
		start := time.Now()
		if r := app.Do(b, "POST", "/api/v2/messages", app.Alice.Token, map[string]any{"message": map[string]any{"content": content}}); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Body)
		}
		createTime += time.Since(start)
		for len(rcv.sizes()) < sent+answerdesk.MaxOnCallContactsPerAccount*answerdesk.MaxDeliveryMethodsPerContact {
			if _, err := d.Tick(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		close(stop)
		others = append(others, <-done...)
		grown += databaseBytes(b, app) - before
		b.StartTimer()
	}
	total := 0
	for _, n := range rcv.sizes() {
		total += n
	}
	slices.Sort(others)
	b.ReportMetric(float64(createTime.Milliseconds())/float64(b.N), "create-ms")
	if len(others) > 0 {
		b.ReportMetric(float64(others[len(others)*95/100].Microseconds())/1000, "other-p95-ms")
		b.ReportMetric(float64(others[len(others)-1].Microseconds())/1000, "other-max-ms")
		b.ReportMetric(float64(len(others))/float64(b.N), "other-creates/msg")
	}
	b.ReportMetric(float64(total)/float64(b.N)/(1<<20), "MiB-sent/msg")
	b.ReportMetric(float64(grown)/float64(b.N)/(1<<20), "MiB-db/msg")
}

// createUntil creates messages on account 1002 one after another until stop is closed, and
// returns how long each took.
func createUntil(b *testing.B, app *testapp.App, stop <-chan struct{}) []time.Duration {
	var took []time.Duration
	for {
		select {
		case <-stop:
			return took
		default:
		}
		req, err := http.NewRequest("POST", app.Server.URL+"/api/v2/messages", strings.NewReader(`{"message":{"content":"A customer called back."}}`))
		if err != nil {
			b.Error(err)
			return took
		}
		req.Header.Set("Authorization", "Bearer "+app.Bob.Token)
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := app.Server.Client().Do(req)
		if err != nil {
			b.Error(err)
			return took
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Errorf("another account's create: %d", resp.StatusCode)
			return took
		}
		took = append(took, time.Since(start))
	}
}
