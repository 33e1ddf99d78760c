// Package ratelimit counts requests per client in fixed windows, in memory. It implements
// answerdesk.RateLimiter for one process: the public limit on SQLite (one process by
// design) and the unit tests of the handlers. Replicas count in the database
// (store.RateLimiter), so that they share their counters.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// Memory is a fixed-window counter per key.
type Memory struct {
	Limit  int           // requests per window
	Window time.Duration // e.g. one minute

	mu      sync.Mutex
	windows map[string]*window
	sweep   time.Time
}

type window struct {
	start time.Time
	used  int
}

var _ answerdesk.RefundableRateLimiter = (*Memory)(nil)

// Take spends n requests of key's window at now. A request that would go over the limit
// spends nothing and is refused.
func (m *Memory) Take(_ context.Context, key string, n int, now time.Time) (answerdesk.RateDecision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.windows == nil {
		m.windows = map[string]*window{}
	}
	start := now.Truncate(m.Window)
	if now.Sub(m.sweep) > m.Window { // forget clients whose window has passed
		for k, w := range m.windows {
			if w.start.Before(start) {
				delete(m.windows, k)
			}
		}
		m.sweep = now
	}
	w := m.windows[key]
	if w == nil || w.start.Before(start) {
		w = &window{start: start}
		m.windows[key] = w
	}
	// Reset is from the key's window, which a Take with a later clock may have started.
	d := answerdesk.RateDecision{Limit: m.Limit, Reset: w.start.Add(m.Window).Sub(now)}
	if w.used+n <= m.Limit {
		w.used += n
		d.Allowed = true
	}
	d.Remaining = m.Limit - w.used
	return d, nil
}

// Refund gives back n requests that a Take at now spent of key's window; nothing once the
// window has started afresh, and never below zero.
func (m *Memory) Refund(_ context.Context, key string, n int, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w := m.windows[key]; w != nil && w.start.Equal(now.Truncate(m.Window)) {
		w.used = max(w.used-n, 0)
	}
	return nil
}
