package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The engine differences live here, and only here: every query in this package is written
// once, in the SQL both engines accept (? placeholders, INTEGER unix-ms times, INTEGER 0/1
// booleans, ON CONFLICT, RETURNING), and this file adapts it to PostgreSQL where it must.
//
// What differs, and where it is handled:
//   - placeholders: queries use ?; the PostgreSQL connection rewrites them to $1, $2, ... once
//     per query text (rebind), so call sites and the statement cache stay engine-blind;
//   - Go bools are sent as 0/1 (the columns are INTEGER on both engines, so scans are alike);
//   - DDL: migrations/sqlite and migrations/postgres, numbered alike, and migrations/common for
//     a number whose SQL is the same on both (WITHOUT ROWID, triggers,
//     identity columns and bytea differ); the PostgreSQL schema also defines SQLite's
//     group_concat and instr, so the queries that use them stay one text;
//   - boolean expressions: PostgreSQL's are of type boolean, so a query never stores or
//     selects one into an INTEGER column or variable (CASE WHEN ... THEN 1 ELSE 0 END);
//   - locking: SQLite has one writer, so a write transaction's reads see what no one else can
//     change until it commits. PostgreSQL has many writers (and many replicas): db.tx runs
//     SERIALIZABLE and runs fn again (at most maxTxAttempts times, see retryPause) on a
//     serialization failure or deadlock (40001, 40P01), which keeps every read-then-write in
//     db.tx (limits counted before an insert, the To Do merge, the OAuth code exchange and
//     refresh rotation) correct without per-query locks. Work queues are claimed in
//     db.txReadCommitted instead: READ COMMITTED, with FOR UPDATE SKIP LOCKED (d.claim) on the
//     rows taken, so workers on many replicas take different rows (under SERIALIZABLE two
//     claimers reading the same index range would fail each other's transactions); the row
//     lock makes a claim exclusive, and a transaction that later changes a claimed row waits
//     for it (and, being SERIALIZABLE, runs again on what the claim wrote). Creating a
//     message also runs at READ COMMITTED: it reads nothing it relies on, and its counter
//     row (message_counts), which every create in the account and day updates, is then a
//     queue instead of a serialization failure;
//   - unique violations: SQLite's "UNIQUE constraint failed" text, PostgreSQL's SQLSTATE 23505;
//   - backup: VACUUM INTO is SQLite's; PostgreSQL has pg_dump (Backup refuses);
//   - pools: SQLite one writer connection and a query_only read pool; PostgreSQL one pool.
type dialect struct {
	postgres bool
	// migrations is the folder of this engine's migrations in migrationFS.
	migrations string
	// migrationLock is run first in every migration transaction: replicas that start together
	// apply each migration once.
	migrationLock string
}

var (
	sqliteDialect   = dialect{migrations: "migrations/sqlite"}
	postgresDialect = dialect{postgres: true, migrations: "migrations/postgres",
		migrationLock: `SELECT pg_advisory_xact_lock(727466)`}
)

// claim ends a SELECT that claims work rows (of the table aliased alias, or of the only
// table): PostgreSQL locks the rows it returns and skips those another transaction holds, so
// workers on many replicas take different rows. SQLite's single writer makes it needless.
func (d dialect) claim(alias string) string {
	switch {
	case !d.postgres:
		return ""
	case alias == "":
		return " FOR UPDATE SKIP LOCKED"
	}
	return " FOR UPDATE OF " + alias + " SKIP LOCKED"
}

// afterBulkLoad runs after many rows were written at once (demo.SeedMessages). On PostgreSQL a
// bulk load leaves the counter rows' old versions and no planner statistics until
// autovacuum comes by: after 100,000 messages, one account's total took 34 ms before a
// VACUUM ANALYZE and 1.6 ms after.
func (d dialect) afterBulkLoad(ctx context.Context, db *sql.DB) error {
	if !d.postgres {
		return nil
	}
	if _, err := db.ExecContext(ctx, `VACUUM (ANALYZE) messages, message_counts`); err != nil {
		return fmt.Errorf("vacuum after bulk load: %w", err)
	}
	return nil
}

// IsPostgresURL reports whether dsn names a PostgreSQL database (postgres:// or
// postgresql://) rather than a SQLite file.
func IsPostgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// maxTxAttempts bounds how often a write transaction is run when PostgreSQL reports a
// serialization failure or deadlock: each retry starts from a fresh snapshot. With
// retryPause the last attempt starts about 1.3 s after the first.
const maxTxAttempts = 25

// retryable reports whether err is a PostgreSQL serialization failure or deadlock, after
// which the whole transaction may be run again.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// DisplayName is dsn as it may be shown or logged: a SQLite path as it is, a PostgreSQL URL
// without its password.
func DisplayName(dsn string) string {
	if IsPostgresURL(dsn) {
		return redactURL(dsn)
	}
	return dsn
}

// isUnique reports whether err is a unique-constraint violation on either engine.
func isUnique(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// isForeignKey reports whether err is a foreign-key violation on either engine.
func isForeignKey(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23503"
	}
	return strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}

// openPostgres opens one pool on the PostgreSQL database at url whose connections rewrite
// ? placeholders.
func openPostgres(url string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)}), nil
}

type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return rebindConn{conn.(*stdlib.Conn)}, nil
}

// rebindConn is a pgx connection that takes ? placeholders and Go bools.
type rebindConn struct{ *stdlib.Conn }

func (c rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// CheckNamedValue sends a Go bool as 0 or 1: flags are INTEGER columns on both engines.
func (c rebindConn) CheckNamedValue(nv *driver.NamedValue) error {
	if b, ok := nv.Value.(bool); ok {
		nv.Value = int64(0)
		if b {
			nv.Value = int64(1)
		}
	}
	return c.Conn.CheckNamedValue(nv)
}

// rebound remembers rewritten query texts. Most queries come from a small set of shapes, but
// some are built from what a client sends (the columns of a message create, the length of
// an IN list), so at most maxRebound texts are kept: past that, a query is rewritten anew
// (microseconds) rather than let a client grow the map without end.
var (
	rebound      sync.Map // query text -> rewritten text
	reboundCount atomic.Int64
)

const maxRebound = 4096

// rebind rewrites the ? placeholders of query as $1, $2, ... (and ?NNN as $NNN); a ? inside
// a string literal, a quoted identifier or a comment is left alone.
func rebind(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	if q, ok := rebound.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		ch := query[i]
		switch {
		case ch == '\'' || ch == '"':
			j := strings.IndexByte(query[i+1:], ch)
			if j < 0 {
				b.WriteString(query[i:])
				i = len(query)
				continue
			}
			b.WriteString(query[i : i+j+2])
			i += j + 1
		case ch == '-' && i+1 < len(query) && query[i+1] == '-':
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				j = len(query) - i
			}
			b.WriteString(query[i : i+j])
			i += j - 1
		case ch == '?':
			// ?NNN (SQLite's numbered parameter) is $NNN; a bare ? is the next number.
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(query[i+1 : j])
				i = j - 1
				continue
			}
			n++
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(ch)
		}
	}
	q := b.String()
	if reboundCount.Load() < maxRebound {
		if _, loaded := rebound.LoadOrStore(query, q); !loaded {
			reboundCount.Add(1)
		}
	}
	return q
}
