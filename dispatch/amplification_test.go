package dispatch_test

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
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

// TestMergeVariableAmplification reproduces issue 12 (High): a method with the most data
// fields allowed, each value the longest allowed and made of nothing but
// {{message.content}}, meets a 20 KB message. Unbounded, that rendered a 526 MB body (3.4 GB
// of memory, 1.1 GB stored). Now the body the endpoint receives and the body stored are at
// most 256 KiB, a warning on the delivery says values were cut, and the heap grows by far
// less than 200 MB while the message is created, rendered and dispatched.
func TestMergeVariableAmplification(t *testing.T) {
	for _, payloadType := range []string{answerdesk.PayloadJSON, answerdesk.PayloadForm} {
		t.Run(strings.ToLower(payloadType)+"_body_and_memory_stay_bounded", func(t *testing.T) {
			app := testapp.New(t)
			var mu sync.Mutex
			var received []int
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, _ := io.Copy(io.Discard, r.Body) // counted, not kept: the unbounded body would not fit
				mu.Lock()
				received = append(received, int(n))
				mu.Unlock()
			}))
			t.Cleanup(rcv.Close)

			const variable = "{{message.content}}"
			value := strings.Repeat(variable, answerdesk.MaxPayloadValueLength/len(variable))
			fields := make([]string, answerdesk.MaxPayloadFields)
			for i := range fields {
				fields[i] = fmt.Sprintf(`{"field":"f%02d","value":%q}`, i, value)
			}
			contact := fmt.Sprintf(`{"account_number":"1001","name":"Amplifier","delivery_methods":[{"url":%q,"payload_type":%q,"data":[%s]}]}`,
				rcv.URL, payloadType, strings.Join(fields, ","))
			// Through the API, so the method is one the validation accepts.
			if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, contact); r.Status != 200 {
				t.Fatalf("create the contact: %d %.300s", r.Status, r.Body)
			}
			content := strings.Repeat("Caller Zoë says the water heater \"leaks\" & the tank is ☎ hot. ", 400)[:20000]
			content = strings.ToValidUTF8(content, "")
			d := newDispatcher(app)

			mem := watchMemory()
			r := app.Do(t, "POST", "/api/v2/messages", app.Alice.Token, map[string]any{"message": map[string]any{"content": content}})
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
			mu.Lock()
			got := append([]int(nil), received...)
			mu.Unlock()
			if len(got) != 1 || got[0] > answerdesk.MaxPayloadBytes || got[0] < answerdesk.MaxPayloadBytes-64 {
				t.Fatalf("the endpoint received bodies of %v bytes, want one of at most (and close to) %d", got, answerdesk.MaxPayloadBytes)
			}

			db := app.DB.SQL()
			var stored, deliveryCount int
			if err := db.QueryRow(`SELECT coalesce(max(length(body)), 0), count(*) FROM dispatch_deliveries`).Scan(&stored, &deliveryCount); err != nil {
				t.Fatal(err)
			}
			if deliveryCount != 1 || stored > answerdesk.MaxPayloadBytes {
				t.Fatalf("%d deliveries stored, the largest body %d bytes, want one of at most %d", deliveryCount, stored, answerdesk.MaxPayloadBytes)
			}
			list := deliveries(t, app, lastMessageID(t, db))
			if len(list) != 1 || list[0].Status != answerdesk.DispatchDelivered ||
				!strings.Contains(strings.Join(list[0].Warnings, "\n"), "values were cut") {
				t.Fatalf("delivery %+v, want delivered with a warning that values were cut", list[0])
			}
		})
	}
}

func lastMessageID(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRow(`SELECT max(id) FROM messages`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// BenchmarkAmplificationWorstCase creates one 20 KB message on an account configured to the
// limits through the API: 100 on-call contacts at one level, each with 10 methods of 50
// fields repeating {{message.content}} as often as a 1 MiB request body allows (100 times a
// value). Every one of the 1,000 deliveries is rendered within its 256 KiB budget in the
// message's transaction. It reports the time to create the message (the writer is held that
// long), the bytes stored, and the bytes allocated, per message.
func BenchmarkAmplificationWorstCase(b *testing.B) {
	app := testapp.New(b)
	const variable = "{{message.content}}"
	value := strings.Repeat(variable, 100)
	fields := make([]string, answerdesk.MaxPayloadFields)
	for i := range fields {
		fields[i] = fmt.Sprintf(`{"field":"f%02d","value":%q}`, i, value)
	}
	methods := make([]string, answerdesk.MaxDeliveryMethodsPerContact)
	for i := range methods {
		methods[i] = fmt.Sprintf(`{"url":"https://hooks%d.example.com/in","data":[%s]}`, i, strings.Join(fields, ","))
	}
	contact := `{"account_number":"1001","name":"Amplifier","delivery_methods":[` + strings.Join(methods, ",") + `]}`
	for range answerdesk.MaxOnCallContactsPerAccount {
		if r := app.Do(b, "POST", "/api/v2/on-call-contacts", app.Alice.Token, contact); r.Status != 200 {
			b.Fatalf("create a contact of %d bytes: %d %.300s", len(contact), r.Status, r.Body)
		}
	}
	content := strings.Repeat("Caller says the water heater leaks. ", 600)[:20000]
	db := app.DB.SQL()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	alloc := stats.TotalAlloc
	b.ResetTimer()
	for b.Loop() {
		if r := app.Do(b, "POST", "/api/v2/messages", app.Alice.Token, map[string]any{"message": map[string]any{"content": content}}); r.Status != 200 {
			b.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&stats)
	var stored, count int64
	if err := db.QueryRow(`SELECT coalesce(sum(length(body)), 0), count(*) FROM dispatch_deliveries`).Scan(&stored, &count); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(count)/float64(b.N), "deliveries/msg")
	b.ReportMetric(float64(stored)/float64(b.N)/1e6, "MB-stored/msg")
	b.ReportMetric(float64(stats.TotalAlloc-alloc)/float64(b.N)/1e6, "MB-allocated/msg")
}
