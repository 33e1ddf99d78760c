package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/ratelimit"
)

func TestMemory(t *testing.T) {
	m := &ratelimit.Memory{Limit: 3, Window: time.Minute}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 12, 0, 10, 0, time.UTC)
	for i, want := range []bool{true, true, true, false} {
		d, _ := m.Take(ctx, "a", 1, t0)
		if d.Allowed != want || d.Limit != 3 || d.Reset != 50*time.Second {
			t.Fatalf("take %d: %+v", i, d)
		}
	}
	if d, _ := m.Take(ctx, "b", 1, t0); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("another key shares the window: %+v", d)
	}
	if d, _ := m.Take(ctx, "b", 3, t0); d.Allowed || d.Remaining != 2 {
		t.Fatalf("a batch over the limit spent requests: %+v", d)
	}
	// A take of 0 only reads the window (the rate headers of /api/v1/openapi.json): allowed
	// when it is full, and spending nothing.
	if d, _ := m.Take(ctx, "a", 0, t0); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("a take of 0 on a full window: %+v", d)
	}
	if d, _ := m.Take(ctx, "c", 0, t0); !d.Allowed || d.Remaining != 3 {
		t.Fatalf("a take of 0 on a fresh key: %+v", d)
	}
	if d, _ := m.Take(ctx, "a", 1, t0.Add(50*time.Second)); !d.Allowed || d.Remaining != 2 || d.Reset != time.Minute {
		t.Fatalf("new window: %+v", d)
	}
}

// Refund gives back what a Take spent in the same window, never below zero, and nothing
// once the window has started afresh (store.TestRateLimiterRefund, in the database).
func TestMemoryRefund(t *testing.T) {
	m := &ratelimit.Memory{Limit: 3, Window: time.Minute}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 12, 0, 10, 0, time.UTC)
	const take, refund = "take", "refund"
	for _, s := range []struct {
		name      string
		op        string
		key       string
		n         int
		at        time.Time
		remaining int // of key a after the step
	}{
		{"fill the window", take, "a", 3, t0, 0},
		{"a refund frees one", refund, "a", 1, t0.Add(time.Second), 1},
		{"which a take spends again", take, "a", 1, t0, 0},
		{"refunds of another key leave it alone", refund, "b", 3, t0, 0},
		{"never below zero", refund, "a", 5, t0, 3},
		{"spend two", take, "a", 2, t0, 1},
		{"a refund from the window before does nothing", refund, "a", 2, t0.Add(-time.Minute), 1},
		{"next window: one spent", take, "a", 1, t0.Add(time.Minute), 2},
		{"a refund of the passed window does nothing", refund, "a", 1, t0, 2},
	} {
		var err error
		if s.op == take {
			_, err = m.Take(ctx, s.key, s.n, s.at)
		} else {
			err = m.Refund(ctx, s.key, s.n, s.at)
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if d, _ := m.Take(ctx, "a", 0, s.at); d.Remaining != s.remaining {
			t.Errorf("%s: %d left, want %d", s.name, d.Remaining, s.remaining)
		}
	}
}

// A Take whose clock reads just before a window another Take has started counts in that
// newer window, and its Reset says so: a refund aimed at now+Reset gives back where the
// spend went (the sign-in throttle refunds this way).
func TestMemoryRefundAcrossTheWindowEdge(t *testing.T) {
	ctx := context.Background()
	m := &ratelimit.Memory{Limit: 10, Window: time.Minute}
	w2 := time.Date(2026, 11, 24, 12, 1, 0, 0, time.UTC)
	a := w2.Add(-time.Millisecond) // the earlier clock, still in the previous window
	d2, _ := m.Take(ctx, "k", 1, w2)
	da, _ := m.Take(ctx, "k", 1, a)
	if err := m.Refund(ctx, "k", 1, a.Add(da.Reset-time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	if err := m.Refund(ctx, "k", 1, w2.Add(d2.Reset-time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	if d, _ := m.Take(ctx, "k", 0, w2); d.Remaining != 10 {
		t.Errorf("two refunded spends left %d of 10", d.Remaining)
	}
}
