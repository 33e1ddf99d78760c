package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// The engine differences in the queries live here: every query in this package is written
// once, in the SQL both engines accept (? placeholders, INTEGER unix-ms times, INTEGER 0/1
// booleans, ON CONFLICT, RETURNING), and this file adapts it to PostgreSQL where it must.
//
// What differs, and where it is handled:
//   - placeholders: queries use ?; the PostgreSQL connection rewrites them to $1, $2, ... once
//     per query text (rebind), so call sites and the statement cache stay engine-blind;
//   - Go bools are sent as 0/1 (the columns are INTEGER on both engines, so scans are alike);
//   - DDL: one template per migration in migrations/, rendered with the dialect's ddl (see
//     ddl and migrationList): the few words that differ are named placeholders, and the
//     parts that differ in structure (SQLite's triggers against PostgreSQL's trigger
//     functions) stand side by side in {{if .Postgres}} blocks; the PostgreSQL schema also
//     defines SQLite's group_concat and instr, so the queries that use them stay one text;
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
//     and version rows (message_counts, data_versions), which creates in the account update
//     too, are then at worst a short queue instead of a serialization failure (each is one
//     of eight shards, by connection: migration 0025);
//   - unique violations: SQLite's "UNIQUE constraint failed" text, PostgreSQL's SQLSTATE 23505;
//   - backup: VACUUM INTO is SQLite's; PostgreSQL has pg_dump (Backup refuses);
//   - pools: SQLite one writer connection and a query_only read pool; PostgreSQL one pool.
type dialect struct {
	postgres bool
	// ddl is what the migration templates are rendered with.
	ddl ddl
	// migrationLock is run first in every migration transaction: replicas that start together
	// apply each migration once.
	migrationLock string
	// countsInSearch: a message search counts its matches in its page query. SQLite's page
	// reads every match to sort them (they come from the FTS5 table in id order), so the
	// count costs nothing more there. PostgreSQL's page walks the account's messages newest
	// first and stops at the page's end when the words are common, which a count over the
	// same rows would prevent (186 ms against 79 for the count and 1 for the page, for two
	// words in one message of seven among 100,000); its search counts on its own, and only
	// when the page is full.
	countsInSearch bool
}

// ddl is everything a migration template (migrations/*.sql) may name, and so the whole of what
// differs between the engines' DDL: a migration is written once, with these placeholders
// where the engines differ by a word, and {{if .Postgres}} ... {{else}} ... {{end}} where
// they differ in structure. The set is small on purpose; a new difference gets a field here,
// with both engines' text, rather than a new copy of a migration.
type ddl struct {
	// Postgres selects the PostgreSQL-only or SQLite-only parts of a migration; set from
	// the dialect's own flag when a migration is rendered.
	Postgres bool
	// ID is the type and key of a table's own id, numbered by the database on insert: SQLite's
	// INTEGER PRIMARY KEY is the rowid; PostgreSQL's is an identity column.
	ID string
	// BigInt is a 64-bit integer column (ids, unix-ms times, counts). SQLite's INTEGER is
	// 64-bit already; flags and small numbers are INTEGER on both and need no placeholder.
	BigInt string
	// Blob is a column of bytes.
	Blob string
	// WithoutRowID ends a CREATE TABLE whose primary key is not an integer, as ){{.WithoutRowID}};:
	// SQLite then stores the rows in the key's b-tree, with no rowid beside it. PostgreSQL
	// has no rowid.
	WithoutRowID string
	// NowMs is an expression for the current time in unix milliseconds (on PostgreSQL the
	// clock's, not the transaction's start, which now() would be).
	NowMs string
}

// PhoneDigits is an expression for the number in column as the message index holds it: its
// digits with the separators people write ( -().+/) removed and the leading 1 of an
// 11-digit number (+1, the North American country code) dropped, as answerdesk.PhoneDigits
// normalises a number searched for; NULL where column is. On SQLite the separators are
// removed once, in a subquery, rather than once for each use of the result; PostgreSQL,
// where a generated column may not hold a subquery, uses two regular expressions.
func (d ddl) PhoneDigits(column string) string {
	if d.Postgres {
		return "regexp_replace(regexp_replace(" + column + ", '[ ()./+-]', '', 'g'), '^1(.{10})$', '\\1')"
	}
	strip := column
	for _, sep := range []string{" ", "-", "(", ")", ".", "+", "/"} {
		strip = "replace(" + strip + ", '" + sep + "', '')"
	}
	return "(SELECT CASE WHEN length(d) = 11 AND d LIKE '1%' THEN substr(d, 2) ELSE d END FROM (SELECT " + strip + " AS d))"
}

var (
	sqliteDialect = dialect{ddl: ddl{
		ID:           "INTEGER PRIMARY KEY",
		BigInt:       "INTEGER",
		Blob:         "BLOB",
		WithoutRowID: " WITHOUT ROWID",
		NowMs:        "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
	}, countsInSearch: true}
	postgresDialect = dialect{postgres: true, ddl: ddl{
		ID:     "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
		BigInt: "BIGINT",
		Blob:   "BYTEA",
		NowMs:  "(extract(epoch FROM clock_timestamp()) * 1000)::bigint",
	}, migrationLock: `SELECT pg_advisory_xact_lock(727466)`}
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

// matchWords is the condition that a message (its id column idColumn) holds every one of
// words, each a run of letters and digits in lower case (as the start of one of its words
// from three characters on, as a whole word below that), has every number of phones among
// its numbers, and, unless callerID is empty, that number as its caller's. Numbers are
// words of the index too: "tel" and the digits of each of the message's numbers, "cid" and
// those of the caller's (migrations 0022 to 0024). SQLite asks its FTS5 table message_fts, each
// term a quoted string (never an operator there); PostgreSQL the tsvector column search,
// each term of letters and digits only (none of to_tsquery's operators).
func (d dialect) matchWords(idColumn string, words, phones []string, callerID string) (string, []any) {
	type term struct {
		text   string
		prefix bool
	}
	var terms []term
	for _, w := range words {
		terms = append(terms, term{w, utf8.RuneCountInString(w) >= 3})
	}
	for _, p := range phones {
		terms = append(terms, term{"tel" + p, false})
	}
	if callerID != "" {
		terms = append(terms, term{"cid" + callerID, false})
	}
	parts := make([]string, len(terms))
	for i, t := range terms {
		if d.postgres {
			parts[i] = foldAccents(t.text)
			if t.prefix {
				parts[i] += ":*"
			}
			continue
		}
		parts[i] = `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
		if t.prefix {
			parts[i] += "*"
		}
	}
	if d.postgres {
		return "search @@ to_tsquery('simple', ?)", []any{strings.Join(parts, " & ")}
	}
	return idColumn + " IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ?)", []any{strings.Join(parts, " AND ")}
}

// messageSource is the FROM of a message list or count for q: on SQLite, a search starts
// from the FTS5 table's matches, joined to the messages they are (CROSS JOIN keeps that
// order: left to itself the planner would walk the account's messages by date and test
// each against the matches, which is every message for a rare word); otherwise the
// messages, a search's condition being messageConds' (a GIN index on PostgreSQL).
func (d dialect) messageSource(q answerdesk.MessageQuery) (string, []any) {
	if d.postgres || !q.Searching() {
		return "messages", nil
	}
	_, args := d.matchWords("", q.Words, q.Phones, q.CallerID)
	return "(SELECT rowid AS fts_id FROM message_fts WHERE message_fts MATCH ?) f CROSS JOIN messages ON messages.id = f.fts_id", args
}

// accentsFrom and accentsTo are the Latin letters with accents that PostgreSQL's message
// index folds (translate() in migration 0024) and the letters they fold to, rune for rune.
const (
	accentsFrom = "áàâäãåāăąéèêëēĕėęěíìîïĩīĭįıóòôöõøōŏőúùûüũūŭůűųýÿñńňçćčďđğĺľłŕřśšşťţźżžÁÀÂÄÃÅĀĂĄÉÈÊËĒĔĖĘĚÍÌÎÏĨĪĬĮİÓÒÔÖÕØŌŎŐÚÙÛÜŨŪŬŮŰŲÝŸÑŃŇÇĆČĎĐĞĹĽŁŔŘŚŠŞŤŢŹŻŽ"
	accentsTo   = "aaaaaaaaaeeeeeeeeeiiiiiiiiiooooooooouuuuuuuuuuyynnncccddglllrrsssttzzzAAAAAAAAAEEEEEEEEEIIIIIIIIIOOOOOOOOOUUUUUUUUUUYYNNNCCCDDGLLLRRSSSTTZZZ"
)

// foldAccents folds the accents of s as PostgreSQL's message index does.
func foldAccents(s string) string {
	from, to := []rune(accentsFrom), []rune(accentsTo)
	return strings.Map(func(r rune) rune {
		if i := slices.Index(from, r); i >= 0 {
			return to[i]
		}
		return r
	}, s)
}
