package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// limitT0 is the instant the limiter tests start at: 10 s into a minute, so that its window
// (of a minute) ends 50 s later.
var limitT0 = time.Date(2026, 11, 22, 12, 0, 10, 0, time.UTC)

// The database limiter answers as the memory one does (ratelimit.TestMemory): a fixed
// window per key, a request over the limit spends nothing, a new window starts afresh.
func TestRateLimiter(t *testing.T) { testdb.ForEachEngine(t, testRateLimiter) }

func testRateLimiter(t *testing.T, engine string) {
	ctx := context.Background()
	db := openTestDB(t, engine, "limit.db")
	l := NewRateLimiter(db, "public", 3, time.Minute)
	for i, want := range []struct {
		allowed   bool
		remaining int
	}{{true, 2}, {true, 1}, {true, 0}, {false, 0}} {
		d, err := l.Take(ctx, "a", 1, limitT0)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != want.allowed || d.Remaining != want.remaining || d.Limit != 3 || d.Reset != 50*time.Second {
			t.Fatalf("take %d: %+v", i, d)
		}
	}
	if engine == testdb.SQLite {
		var mode int
		if err := db.write.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&mode); err != nil || mode != 2 {
			t.Fatalf("the writer is left at synchronous %d (%v), want FULL (2)", mode, err)
		}
	}
	steps := []struct {
		name      string
		l         *RateLimiter
		key       string
		n         int
		at        time.Time
		allowed   bool
		remaining int
		reset     time.Duration
	}{
		{"another key has its own window", l, "b", 1, limitT0, true, 2, 50 * time.Second},
		{"a batch over what is left spends nothing", l, "b", 3, limitT0, false, 2, 50 * time.Second},
		{"a batch that fits", l, "b", 2, limitT0, true, 0, 50 * time.Second},
		// A take of 0 only reads the window (the rate headers of /api/v1/openapi.json): it
		// is allowed however full the window is.
		{"a take of 0 when the window is full", l, "b", 0, limitT0, true, 0, 50 * time.Second},
		{"a take of 0 spends nothing", l, "d", 0, limitT0, true, 3, 50 * time.Second},
		{"another scope has its own counters", NewRateLimiter(db, "sign-in", 3, time.Minute), "a", 1, limitT0, true, 2, 50 * time.Second},
		{"a new window starts afresh", l, "a", 1, limitT0.Add(50 * time.Second), true, 2, time.Minute},
		{"more than the limit never fits", l, "c", 4, limitT0, false, 3, 50 * time.Second},
		{"a late clock counts in the newer window", l, "a", 1, limitT0.Add(49 * time.Second), true, 1, 61 * time.Second},
	}
	for _, s := range steps {
		d, err := s.l.Take(ctx, s.key, s.n, s.at)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed != s.allowed || d.Remaining != s.remaining || d.Reset != s.reset {
			t.Errorf("%s: %+v, want allowed %v remaining %d reset %v", s.name, d, s.allowed, s.remaining, s.reset)
		}
	}
}

// Concurrent requests (as from several replicas) never spend more than the limit.
func TestRateLimiterConcurrent(t *testing.T) { testdb.ForEachEngine(t, testRateLimiterConcurrent) }

func testRateLimiterConcurrent(t *testing.T, engine string) {
	ctx := context.Background()
	db := openTestDB(t, engine, "limit.db")
	limiters := []*RateLimiter{NewRateLimiter(db, "public", 60, time.Minute), NewRateLimiter(db, "public", 60, time.Minute)}
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			d, err := limiters[i%2].Take(ctx, "client", 1, limitT0)
			if err != nil {
				t.Error(err)
				return
			}
			if d.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if allowed != 60 {
		t.Errorf("%d of 100 requests allowed, want 60", allowed)
	}
}

// Refund gives back what a Take spent in the same window, never below zero, and nothing
// once the window has started afresh.
func TestRateLimiterRefund(t *testing.T) { testdb.ForEachEngine(t, testRateLimiterRefund) }

func testRateLimiterRefund(t *testing.T, engine string) {
	ctx := context.Background()
	db := openTestDB(t, engine, "limit.db")
	l := NewRateLimiter(db, "sign-in", 3, time.Minute)
	other := NewRateLimiter(db, "other", 3, time.Minute)
	const take, refund = "take", "refund"
	steps := []struct {
		name      string
		op        string
		l         *RateLimiter
		key       string
		n         int
		at        time.Time
		allowed   bool // of a take
		remaining int  // of key a after the step, as a take of 0 at the step's time sees it
	}{
		{"fill the window", take, l, "a", 3, limitT0, true, 0},
		{"a refund frees one", refund, l, "a", 1, limitT0.Add(time.Second), false, 1},
		{"which a take spends again", take, l, "a", 1, limitT0, true, 0},
		{"refunds of another scope leave it alone", refund, other, "a", 3, limitT0, false, 0},
		{"refunds of another key leave it alone", refund, l, "b", 3, limitT0, false, 0},
		{"never below zero", refund, l, "a", 5, limitT0, false, 3},
		{"spend two", take, l, "a", 2, limitT0, true, 1},
		{"a refund from the window before does nothing", refund, l, "a", 2, limitT0.Add(-time.Minute), false, 1},
		{"next window: one spent", take, l, "a", 1, limitT0.Add(time.Minute), true, 2},
		{"a refund of the passed window does nothing", refund, l, "a", 1, limitT0, false, 2},
		{"a refund of an unknown key does nothing", refund, l, "c", 1, limitT0.Add(time.Minute), false, 2},
	}
	for _, s := range steps {
		switch s.op {
		case take:
			d, err := s.l.Take(ctx, s.key, s.n, s.at)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != s.allowed {
				t.Errorf("%s: %+v, want allowed %v", s.name, d, s.allowed)
			}
		case refund:
			if err := s.l.Refund(ctx, s.key, s.n, s.at); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		d, err := l.Take(ctx, "a", 0, s.at)
		if err != nil {
			t.Fatal(err)
		}
		if d.Remaining != s.remaining {
			t.Errorf("%s: %d left, want %d", s.name, d.Remaining, s.remaining)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM rate_limits WHERE subject IN ('b', 'c')`); n != 0 {
		t.Errorf("refunds made %d counters", n)
	}
}

// Attempts that spend one each and give it back when they succeed never hold more than
// the limit between them, on any number of limiters on one database: the sign-in throttle
// across replicas (oauth.TestSignInThrottleAcrossReplicas).
func TestRateLimiterSpendAndRefundConcurrent(t *testing.T) {
	testdb.ForEachEngine(t, testRateLimiterSpendAndRefundConcurrent)
}

func testRateLimiterSpendAndRefundConcurrent(t *testing.T, engine string) {
	ctx := context.Background()
	db := openTestDB(t, engine, "limit.db")
	limiters := []*RateLimiter{NewRateLimiter(db, "sign-in", 10, time.Minute), NewRateLimiter(db, "sign-in", 10, time.Minute)}
	var mu sync.Mutex
	holding, most, failures := 0, 0, 0
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			l := limiters[i%2]
			d, err := l.Take(ctx, "carol", 1, limitT0)
			if err != nil || !d.Allowed {
				if err != nil {
					t.Error(err)
				}
				return
			}
			mu.Lock()
			holding++
			most = max(most, holding)
			mu.Unlock()
			if i%3 != 0 { // a right password: give it back
				mu.Lock()
				holding--
				mu.Unlock()
				if err := l.Refund(ctx, "carol", 1, limitT0); err != nil {
					t.Error(err)
				}
				return
			}
			mu.Lock()
			failures++
			mu.Unlock()
		})
	}
	wg.Wait()
	if most > 10 || failures > 10 {
		t.Errorf("%d held at once, %d failures kept; the limit is 10", most, failures)
	}
	d, err := limiters[0].Take(ctx, "carol", 0, limitT0)
	if err != nil {
		t.Fatal(err)
	}
	if used := 10 - d.Remaining; used != failures {
		t.Errorf("%d counted, want the %d failures kept", used, failures)
	}
}

// Counters of passed windows are deleted, and only those.
func TestRateLimiterSweeps(t *testing.T) { testdb.ForEachEngine(t, testRateLimiterSweeps) }

func testRateLimiterSweeps(t *testing.T, engine string) {
	ctx := context.Background()
	db := openTestDB(t, engine, "limit.db")
	l := NewRateLimiter(db, "public", 5, time.Minute)
	for _, key := range []string{"a", "b", "c"} {
		if _, err := l.Take(ctx, key, 1, limitT0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Take(ctx, "d", 1, limitT0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM rate_limits`); n != 1 {
		t.Errorf("%d counters left, want the current one", n)
	}
}

// A database remembers the key it was first served with and refuses another.
func TestCheckSigningKey(t *testing.T) { testdb.ForEachEngine(t, testCheckSigningKey) }

func testCheckSigningKey(t *testing.T, engine string) {
	ctx := context.Background()
	db := openTestDB(t, engine, "key.db")
	a, b := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	for i, step := range []struct {
		key  []byte
		want error
	}{{a, nil}, {a, nil}, {b, ErrSigningKeyMismatch}, {a, nil}} {
		if err := db.CheckSigningKey(ctx, step.key); !errors.Is(err, step.want) {
			t.Errorf("start %d: %v, want %v", i, err, step.want)
		}
	}
	if forgot, err := db.ForgetSigningKey(ctx); err != nil || !forgot {
		t.Fatalf("forget: %v %v", forgot, err)
	}
	if err := db.CheckSigningKey(ctx, b); err != nil {
		t.Errorf("a new key after the old one was forgotten: %v", err)
	}
	if err := db.CheckSigningKey(ctx, a); !errors.Is(err, ErrSigningKeyMismatch) {
		t.Errorf("the forgotten key: %v, want a refusal", err)
	}
	var stored string
	if err := db.read.QueryRowContext(ctx, `SELECT value FROM service_meta`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != KeyFingerprint(b) || KeyFingerprint(a) == KeyFingerprint(b) || strings.Contains(stored, string(b)) {
		t.Errorf("stored %q, want the fingerprint of the key recorded last", stored)
	}
}

// BenchmarkRateLimiterTake measures one Take: one upsert through the writer (SQLite at
// synchronous FULL, the default).
func BenchmarkRateLimiterTake(b *testing.B) {
	for _, engine := range testdb.Engines() {
		b.Run(engine, func(b *testing.B) { benchmarkRateLimiterTake(b, engine) })
	}
}

func benchmarkRateLimiterTake(b *testing.B, engine string) {
	ctx := context.Background()
	db, err := Open(ctx, testdb.DSN(b, engine, "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	l := NewRateLimiter(db, "public", 1<<30, time.Minute)
	now := time.Now()
	keys := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Take(ctx, keys[i%len(keys)], 1, now); err != nil {
			b.Fatal(err)
		}
	}
}
