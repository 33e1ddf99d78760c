package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds the cache; queries are built from a small set of shapes (filter
// combinations times membership counts), so the bound is only a guard.
const maxCachedStatements = 1000

// stmtReader runs read queries through prepared statements cached by their SQL text.
// modernc's SQLite compiles a statement on every Prepare, which was a third of the CPU of
// GET /api/v2/messages/{id}; a database/sql Stmt is prepared once per connection and reused.
// Without cache (PostgreSQL: pgx prepares and caches per connection) it runs queries as they are.
type stmtReader struct {
	db    *sql.DB
	cache bool
	mu    sync.RWMutex
	stmts map[string]*sql.Stmt
}

func newStmtReader(db *sql.DB, cache bool) *stmtReader {
	return &stmtReader{db: db, cache: cache, stmts: map[string]*sql.Stmt{}}
}

func (r *stmtReader) stmt(ctx context.Context, query string) *sql.Stmt {
	if !r.cache {
		return nil
	}
	r.mu.RLock()
	st := r.stmts[query]
	r.mu.RUnlock()
	if st != nil {
		return st
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if st = r.stmts[query]; st != nil || len(r.stmts) >= maxCachedStatements {
		return st
	}
	st, err := r.db.PrepareContext(ctx, query)
	if err != nil {
		return nil // the unprepared query below reports the error
	}
	r.stmts[query] = st
	return st
}

// QueryRowContext is sql.DB.QueryRowContext through the cache.
func (r *stmtReader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := r.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return r.db.QueryRowContext(ctx, query, args...)
}

// QueryContext is sql.DB.QueryContext through the cache.
func (r *stmtReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := r.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return r.db.QueryContext(ctx, query, args...)
}

func (r *stmtReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.stmts {
		st.Close()
	}
	r.stmts = nil
}
