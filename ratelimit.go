package answerdesk

import (
	"context"
	"time"
)

// Failed sign-ins allowed per SignInWindow, counted three ways: enough for typos, too few
// to guess a password. One place declares them; the OAuth server's throttles take them.
const (
	SignInWindow                  = 15 * time.Minute
	SignInLimitPerEmailAndAddress = 10  // one email from one client address
	SignInLimitPerAddress         = 50  // every email from one client address
	SignInLimitPerEmail           = 100 // one email from anywhere
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
