package answerdesk

import (
	"context"
	"time"
)

// RateDecision is the answer of a rate limiter to one request.
type RateDecision struct {
	Allowed   bool
	Limit     int           // requests per window
	Remaining int           // left in the current window after this request
	Reset     time.Duration // until the window starts afresh
}

// RateLimiter counts requests per client key. Counters live behind this interface so that
// replicas behind a load balancer can share them.
type RateLimiter interface {
	// Take spends n requests (a batch spends one per operation) of key's allowance at now.
	Take(ctx context.Context, key string, n int, now time.Time) (RateDecision, error)
}
