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
	if d, _ := m.Take(ctx, "a", 1, t0.Add(50*time.Second)); !d.Allowed || d.Remaining != 2 || d.Reset != time.Minute {
		t.Fatalf("new window: %+v", d)
	}
}
