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

// RefundableRateLimiter is a RateLimiter that can give back what a Take spent. The sign-in
// throttles need it: an attempt spends a failure before its password is compared, which
// makes the check and the count one atomic step on every replica, and a right password
// gives the failure back, so that only failures count.
type RefundableRateLimiter interface {
	RateLimiter
	// Refund gives back n requests that a Take at now spent of key's allowance. It never
	// takes the count below zero, and does nothing once key's window has started afresh
	// (what was spent in an older window was already forgotten).
	Refund(ctx context.Context, key string, n int, now time.Time) error
}
