package rest_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// BenchmarkSearchMessages measures GET /api/v2/messages?q= through the handler stack on an
// account of 100,000 messages (ANSWERDESK_TEST_ENGINE chooses the database): the same page
// without a search, two words of a real message (a caller's name), two words that many
// messages have, a caller's number as people write it, and caller_id, by 1 and 16 clients
// at once; p50 and p99 of the requests' latency. BenchmarkCreateMessage gives the cost of
// keeping the index on writes.
func BenchmarkSearchMessages(b *testing.B) {
	app := testapp.New(b)
	if err := demo.SeedMessages(context.Background(), app.DB, "1001", 100_000, 60, testapp.Start); err != nil {
		b.Fatal(err)
	}
	app.Rest.PageCacheBytes = 1 // the queries on every request, not the cache
	h := app.Rest.Handler()
	var content, caller string
	if err := app.DB.SQL().QueryRowContext(context.Background(),
		`SELECT content, caller_id FROM messages WHERE caller_id IS NOT NULL ORDER BY id LIMIT 1 OFFSET 50000`).Scan(&content, &caller); err != nil {
		b.Fatal(err)
	}
	words := strings.Fields(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return ' '
	}, content))
	words = slices.DeleteFunc(words, func(w string) bool { return len(w) < 4 })
	two := strings.Join(words[:min(2, len(words))], " ")
	spaced := "+1 (" + caller[len(caller)-10:len(caller)-7] + ") " + caller[len(caller)-7:len(caller)-4] + "-" + caller[len(caller)-4:]
	for _, c := range []struct{ name, query string }{
		{"no_search", "origin=CALL"}, // the same page without a search: what a search adds is the rest
		{"two_words", "q=" + url.QueryEscape(two)},
		{"common_words", "q=water+heater"}, // in one message of seven
		{"phone", "q=" + url.QueryEscape(spaced)},
		{"caller_id", "caller_id=" + url.QueryEscape(spaced)},
	} {
		for _, clients := range []int{1, 16} {
			b.Run(c.name+"/clients="+strconv.Itoa(clients), func(b *testing.B) {
				req := func() *http.Request { return benchGet("/api/v2/messages?page_size=50&"+c.query, app.Alice.Token, "") }
				var mu sync.Mutex
				var lat []time.Duration
				for b.Loop() {
					var wg sync.WaitGroup
					for range clients {
						wg.Go(func() {
							start := time.Now()
							rec := httptest.NewRecorder()
							h.ServeHTTP(rec, req())
							d := time.Since(start)
							if rec.Code != http.StatusOK {
								b.Errorf("status %d: %s", rec.Code, rec.Body)
							}
							mu.Lock()
							lat = append(lat, d)
							mu.Unlock()
						})
					}
					wg.Wait()
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}

// BenchmarkCreateMessage measures POST /api/v2/messages through the handler stack, its
// delivery queued, with the search index kept (as served) and then without it (its
// triggers and generated columns dropped from this benchmark's database): the index's
// cost on every message taken.
func BenchmarkCreateMessage(b *testing.B) {
	app := testapp.New(b)
	h := app.Rest.Handler()
	body := `{"message": {"content": "Leaking water heater in the basement, please call back before 5", "first_name": "Dana",
		"last_name": "Ruiz", "caller_id": "+1 (555) 555-0142", "phone": "555.555.0142", "email": "dana@mail.example",
		"address": "12 Elm Street", "answers": {"Issue": "leak", "Callback number": "5555550142"}}}`
	run := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, "/api/v2/messages", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+app.Alice.Token)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		}
	}
	b.Run("indexed", run)
	driver, dsn := "sqlite", "file:"+app.DB.Path()
	if app.DB.Postgres() {
		driver, dsn = "pgx", app.DB.Path()
	}
	w, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	exec := func(qs ...string) {
		for _, q := range qs {
			if _, err := w.Exec(q); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
	}
	// Without the index.
	if app.DB.Postgres() {
		exec("ALTER TABLE messages DROP COLUMN search")
	} else {
		exec("DROP TRIGGER message_fts_insert", "DROP TRIGGER message_fts_update", "DROP TRIGGER message_fts_delete")
	}
	b.Run("unindexed", run)
}
