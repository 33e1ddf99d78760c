package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// RateLimiter is a fixed-window counter per key kept in the database, so that every replica
// on one database counts against the same allowance. Each Take is one upsert; a request
// that would go over the limit spends nothing and is refused. Scopes keep the limiters that
// share the table apart.
type RateLimiter struct {
	db     *DB
	scope  string
	limit  int
	window time.Duration

	mu        sync.Mutex
	lastSweep time.Time
}

var _ answerdesk.RefundableRateLimiter = (*RateLimiter)(nil)

// NewRateLimiter returns the limiter of scope (e.g. "public"): limit requests per window
// for each key.
func NewRateLimiter(db *DB, scope string, limit int, window time.Duration) *RateLimiter {
	return &RateLimiter{db: db, scope: scope, limit: limit, window: window}
}

// The upsert decides in the database, under the row's lock, so that concurrent requests on
// several replicas cannot both take the last request of a window: a row of an older window
// starts afresh, otherwise n is added if it fits. allowed records which branch was taken,
// because used alone cannot tell a refusal from a request that filled the window exactly.
const takeSQL = `INSERT INTO rate_limits (scope, subject, window_start, expires_at, used, allowed)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (scope, subject) DO UPDATE SET
  allowed = CASE WHEN rate_limits.window_start < excluded.window_start THEN excluded.allowed
    WHEN rate_limits.used + ? <= ? THEN 1 ELSE 0 END,
  used = CASE WHEN rate_limits.window_start < excluded.window_start THEN excluded.used
    WHEN rate_limits.used + ? <= ? THEN rate_limits.used + ? ELSE rate_limits.used END,
  window_start = CASE WHEN rate_limits.window_start < excluded.window_start THEN excluded.window_start
    ELSE rate_limits.window_start END,
  expires_at = CASE WHEN rate_limits.window_start < excluded.window_start THEN excluded.expires_at
    ELSE rate_limits.expires_at END
RETURNING used, allowed, window_start`

// Take spends n requests of key's window at now.
func (l *RateLimiter) Take(ctx context.Context, key string, n int, now time.Time) (answerdesk.RateDecision, error) {
	start := now.Truncate(l.window)
	used, allowed := n, 1
	if n > l.limit { // a fresh window cannot hold it either
		used, allowed = 0, 0
	}
	var gotUsed, gotAllowed int
	var windowMS int64
	err := l.db.writeUnsynced(ctx, func(conn rowQuerier) error {
		return conn.QueryRowContext(ctx, takeSQL,
			l.scope, key, start.UnixMilli(), start.Add(l.window).UnixMilli(), used, allowed,
			n, l.limit, n, l.limit, n).Scan(&gotUsed, &gotAllowed, &windowMS)
	})
	if err != nil {
		return answerdesk.RateDecision{}, fmt.Errorf("rate limit %s: %w", l.scope, err)
	}
	// The decision has committed: a failed sweep must not turn it into an error (a caller
	// would take nothing as spent). It is tried again a window later; expired rows are
	// harmless meanwhile, and a failing DELETE on every request would not be.
	if err := l.sweep(ctx, now); err != nil {
		slog.WarnContext(ctx, "rate limit sweep", "scope", l.scope, "err", err)
	}
	return answerdesk.RateDecision{
		Allowed:   gotAllowed == 1,
		Limit:     l.limit,
		Remaining: l.limit - gotUsed,
		Reset:     time.UnixMilli(windowMS).Add(l.window).Sub(now),
	}, nil
}

// refundSQL gives back what a Take spent, in the same window only: a row whose window has
// started afresh (window_start newer) keeps its count, so that a refund cannot lend the new
// window an allowance it never spent. A Take from a replica whose clock is behind counts in
// the row's newer window, which this does not match: that refund is lost, which errs towards
// counting too much, never too little.
const refundSQL = `UPDATE rate_limits SET used = CASE WHEN used > ? THEN used - ? ELSE 0 END
WHERE scope = ? AND subject = ? AND window_start = ?`

// Refund gives back n requests that a Take at now spent of key's window.
func (l *RateLimiter) Refund(ctx context.Context, key string, n int, now time.Time) error {
	start := now.Truncate(l.window)
	err := l.db.writeUnsynced(ctx, func(conn rowQuerier) error {
		_, err := conn.ExecContext(ctx, refundSQL, n, n, l.scope, key, start.UnixMilli())
		return err
	})
	if err != nil {
		return fmt.Errorf("rate limit %s: refund: %w", l.scope, err)
	}
	return nil
}

// sweep deletes the scope's counters whose window has passed, at most once a window (and
// at most once a minute), so that clients seen once do not stay in the table.
func (l *RateLimiter) sweep(ctx context.Context, now time.Time) error {
	l.mu.Lock()
	due := now.Sub(l.lastSweep) >= max(l.window, time.Minute)
	if due {
		l.lastSweep = now
	}
	l.mu.Unlock()
	if !due {
		return nil
	}
	if _, err := l.db.write.ExecContext(ctx, `DELETE FROM rate_limits WHERE scope = ? AND expires_at <= ?`,
		l.scope, now.UnixMilli()); err != nil {
		return fmt.Errorf("sweep rate limit %s: %w", l.scope, err)
	}
	return nil
}

// rowQuerier is a connection or a transaction.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// writeUnsynced runs fn's one write without waiting for it to reach the disk: a
// rate-limit counter lost to a power cut costs nothing, and the wait was most of a Take
// (BenchmarkRateLimiterTake: on SQLite 3.2 ms at synchronous FULL against 45 µs at
// NORMAL; on a busy PostgreSQL 2.8 ms against 70 µs with synchronous_commit off).
// Durability of everything else is unchanged: SQLite's WAL is written in order, so the
// next FULL commit syncs this one with it; PostgreSQL's setting is for this transaction
// alone, and its WAL too is flushed in order.
func (db *DB) writeUnsynced(ctx context.Context, fn func(rowQuerier) error) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if db.d.postgres {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	if db.synchronous == SynchronousNormal {
		return fn(conn)
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return err
	}
	fnErr := fn(conn)
	// Restored whatever ctx says: the connection serves every later write.
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = `+db.synchronous); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never hand it back at NORMAL
		return fmt.Errorf("restore synchronous mode: %w", err)
	}
	return fnErr
}
