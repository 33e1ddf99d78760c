package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// copyTables is every table Copy moves, parents before children so that each row's
// foreign keys find their targets (TestCopyTablesCoverTheSchema holds it to the schema of
// both engines). The tables of ownTables are each database's own.
var copyTables = []string{
	"accounts", "users", "memberships", "phone_numbers", "sending_domains", "email_blacklist",
	"api_tokens", "messages", "audio_objects", "audio_chunks", "call_recordings", "recording_fetches",
	"to_dos", "schedules", "to_do_occurrences", "to_do_attempts",
	"on_call_contacts", "delivery_methods", "dispatch_deliveries", "dispatch_attempts",
	"batch_jobs", "oauth_clients", "oauth_grants", "oauth_codes", "oauth_tokens", "web_sessions",
	"rate_limits", "service_meta",
}

// ownTables describe the database they are in, not the service's data, and are not copied:
// the migrations applied to it, and the serve processes running on it now.
var ownTables = []string{"schema_migrations", "replicas"}

// ftsTables are SQLite's full-text index of messages and the shadow tables FTS5 keeps it
// in: triggers fill the target's as the messages arrive, and they are never copied.
var ftsTables = []string{"message_fts", "message_fts_config", "message_fts_data", "message_fts_docsize", "message_fts_idx"}

// postgresOwnTables are PostgreSQL's alone: the auth version (migration 0025) is kept by
// triggers and starts from the clock in every database, so a target's goes on past any
// the source handed out.
var postgresOwnTables = []string{"auth_version"}

// derivedTables are kept by triggers from other tables on both engines: the target's fill
// themselves as the rows they count arrive, and Copy verifies them instead of copying.
var derivedTables = map[string]string{
	// A count is the sum of its shards' rows (on PostgreSQL, migration 0025), and rows whose
	// count fell to zero are left behind by deletes: the live counts are compared.
	"message_counts": `SELECT count(*), coalesce(sum(n), 0) FROM (SELECT sum(n) AS n FROM message_counts
		GROUP BY account_id, day, origin, status, read HAVING sum(n) > 0) c`,
	// Versions count the writes an account has seen, so the target's (bumped by the copied
	// inserts) differ from the source's by design; raiseVersions sets each above the source's.
	"data_versions": "",
}

// CopyOptions tunes Copy.
type CopyOptions struct {
	// BatchSize is the rows per INSERT (and per target transaction); 0: 1,000, fewer for wide
	// tables so that one statement stays within both engines' parameter limits.
	BatchSize int
	// Progress, when set, is told of each table as it is done.
	Progress func(table string, rows int64, took time.Duration)
}

// CopyReport is what Copy moved: rows per table, in copy order.
type CopyReport struct {
	Tables []TableCount
	Rows   int64
}

// TableCount is one table's row count.
type TableCount struct {
	Table string
	Rows  int64
}

// Copy moves every row of from into to, a migrated database of either engine with no rows
// yet: table by table in dependency order, in batches, ids kept. Then it moves PostgreSQL's
// identity sequences past the copied ids and checks that every table holds as many rows as
// the source. A target that holds any row is refused, so a failed copy is restarted into a
// fresh database. The source should not change meanwhile (stop serve): a SQLite source is
// read table by table, a PostgreSQL one in one snapshot.
func Copy(ctx context.Context, from, to *DB, opts CopyOptions) (*CopyReport, error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 1000
	}
	if err := sameSchema(ctx, from, to); err != nil {
		return nil, err
	}
	for _, t := range append(slices.Clone(copyTables), "message_counts") {
		var n int64
		if err := to.read.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("count target %s: %w", t, err)
		}
		if n > 0 {
			return nil, fmt.Errorf("the target database is not empty (%s has %d rows): copy into a new, empty database", t, n)
		}
	}
	src, done, err := from.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	report := &CopyReport{}
	for _, t := range copyTables {
		start := time.Now()
		n, err := copyTable(ctx, src, to, t, opts.BatchSize)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", t, err)
		}
		report.Tables = append(report.Tables, TableCount{Table: t, Rows: n})
		report.Rows += n
		if opts.Progress != nil {
			opts.Progress(t, n, time.Since(start))
		}
	}
	if to.d.postgres {
		if err := resetIdentities(ctx, to); err != nil {
			return nil, err
		}
	}
	if err := verifyCopy(ctx, src, to, report); err != nil {
		return nil, err
	}
	if err := raiseVersions(ctx, src, to); err != nil {
		return nil, err
	}
	return report, nil
}

// raiseVersions sets the data version of every account of the target above the source's,
// so that an ETag a client kept from the source never names different data on the copy.
// The target's versions were bumped by the copied rows from its own clock, which is
// usually enough; but a version is a sum of shards on PostgreSQL (migration 0025), several
// times the clock, so a copy from PostgreSQL into SQLite needs raising.
func raiseVersions(ctx context.Context, src querier, to *DB) error {
	sums := func(q querier) (map[int64]int64, error) {
		rows, err := q.QueryContext(ctx, `SELECT account_id, coalesce(sum(version), 0) FROM data_versions GROUP BY account_id`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		m := map[int64]int64{}
		for rows.Next() {
			var a, v int64
			if err := rows.Scan(&a, &v); err != nil {
				return nil, err
			}
			m[a] = v
		}
		return m, rows.Err()
	}
	before, err := sums(src)
	if err != nil {
		return fmt.Errorf("read the source's data versions: %w", err)
	}
	after, err := sums(to.read)
	if err != nil {
		return fmt.Errorf("read the target's data versions: %w", err)
	}
	upsert := `INSERT INTO data_versions (account_id, version) VALUES (?, ?)
		ON CONFLICT (account_id) DO UPDATE SET version = data_versions.version + ?`
	if to.d.postgres {
		upsert = `INSERT INTO data_versions (account_id, shard, version) VALUES (?, 0, ?)
			ON CONFLICT (account_id, shard) DO UPDATE SET version = data_versions.version + ?`
	}
	for account, v := range before {
		if after[account] > v {
			continue
		}
		add := v - after[account] + 1
		if _, err := to.write.ExecContext(ctx, upsert, account, add, add); err != nil {
			return fmt.Errorf("raise the data version of account %d: %w", account, err)
		}
	}
	return nil
}

// querier is what a copy reads through: a read-only transaction or a pool.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// snapshot is where Copy reads the source: on PostgreSQL one REPEATABLE READ transaction,
// so every table is read at one instant. On SQLite the reader pool: a read transaction
// there would start as BEGIN IMMEDIATE (the pools share the DSN) and take the write lock.
func (db *DB) snapshot(ctx context.Context) (querier, func(), error) {
	if !db.d.postgres {
		return db.read, func() {}, nil
	}
	tx, err := db.read.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("begin reading the source: %w", err)
	}
	return tx, func() { _ = tx.Rollback() }, nil
}

// sameSchema checks that both databases are at the same migration, so the tables match.
func sameSchema(ctx context.Context, from, to *DB) error {
	var a, b int
	if err := from.read.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&a); err != nil {
		return fmt.Errorf("read the source's schema version: %w", err)
	}
	if err := to.read.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&b); err != nil {
		return fmt.Errorf("read the target's schema version: %w", err)
	}
	if a != b {
		return fmt.Errorf("the source is at schema version %d and the target at %d: migrate both with this version of answerdesk", a, b)
	}
	return nil
}

// column is a column's name and whether the engine stores it as bytes.
type column struct {
	name  string
	bytes bool
}

// columns lists table's columns in their declared order.
func (db *DB) columns(ctx context.Context, table string) ([]column, error) {
	var rows *sql.Rows
	var err error
	if db.d.postgres {
		// Generated columns (a message's words and numbers) are computed by the target.
		rows, err = db.read.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position`, table)
	} else {
		rows, err = db.read.QueryContext(ctx, `SELECT name, type FROM pragma_table_xinfo(?) WHERE hidden = 0 ORDER BY cid`, table)
	}
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		typ = strings.ToLower(typ)
		cols = append(cols, column{name: name, bytes: typ == "bytea" || typ == "blob"})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %s does not exist", table)
	}
	return cols, nil
}

// columnList is the columns' names, in order, as a SELECT or INSERT lists them.
func columnList(cols []column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// scanTargets are the destinations of a Scan of a row of n columns of any type: after each
// rows.Scan(ptrs...), vals holds the row's values as the driver gives them.
func scanTargets(n int) (vals, ptrs []any) {
	vals, ptrs = make([]any, n), make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, ptrs
}

// copyTable streams table's rows from src into to in batches of multi-row INSERTs, each
// batch one target transaction.
func copyTable(ctx context.Context, src querier, to *DB, table string, batchSize int) (int64, error) {
	cols, err := to.columns(ctx, table)
	if err != nil {
		return 0, err
	}
	list := columnList(cols)
	// A statement may bind at most 32,766 values on SQLite and 65,535 on PostgreSQL.
	batchSize = max(1, min(batchSize, 30000/len(cols)))
	rows, err := src.QueryContext(ctx, `SELECT `+list+` FROM `+table)
	if err != nil {
		return 0, fmt.Errorf("read: %w", err)
	}
	defer rows.Close()
	row := "(" + placeholders(len(cols)) + ")"
	insert := func(args []any) error {
		n := len(args) / len(cols)
		q := `INSERT INTO ` + table + ` (` + list + `) VALUES ` + strings.Repeat(row+", ", n-1) + row
		return to.tx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, q, args...)
			return err
		})
	}
	var total int64
	batch := make([]any, 0, batchSize*len(cols))
	vals, ptrs := scanTargets(len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return total, fmt.Errorf("read: %w", err)
		}
		for i, v := range vals {
			batch = append(batch, convert(v, cols[i].bytes))
		}
		if len(batch) == batchSize*len(cols) {
			if err := insert(batch); err != nil {
				return total, err
			}
			total += int64(batchSize)
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return total, fmt.Errorf("read: %w", err)
	}
	if len(batch) > 0 {
		if err := insert(batch); err != nil {
			return total, err
		}
		total += int64(len(batch) / len(cols))
	}
	return total, nil
}

// convert gives a value the Go type the target column takes: SQLite may hand back text
// for a BLOB column and bytes for a TEXT one, which PostgreSQL's types do not accept.
func convert(v any, bytes bool) any {
	switch x := v.(type) {
	case string:
		if bytes {
			return []byte(x)
		}
	case []byte: // database/sql copied it for the scan: the driver's buffer is not kept
		if !bytes {
			return string(x)
		}
	}
	return v
}

// resetIdentities moves each PostgreSQL identity sequence past the largest copied id, so
// the next row inserted without an id does not collide with a copied one.
func resetIdentities(ctx context.Context, db *DB) error {
	rows, err := db.read.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY table_name`)
	if err != nil {
		return fmt.Errorf("list identity columns: %w", err)
	}
	type ident struct{ table, column string }
	var idents []ident
	for rows.Next() {
		var i ident
		if err := rows.Scan(&i.table, &i.column); err != nil {
			rows.Close()
			return err
		}
		idents = append(idents, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, i := range idents {
		// setval of NULL (an empty table) is NULL and changes nothing.
		if _, err := db.write.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence(?, ?), (SELECT max(`+i.column+`) FROM `+i.table+`))`,
			i.table, i.column); err != nil {
			return fmt.Errorf("reset the id sequence of %s: %w", i.table, err)
		}
	}
	return nil
}

// verifyCopy checks that each table of the target holds the source's row count, and that
// the derived tables agree.
func verifyCopy(ctx context.Context, src querier, to *DB, report *CopyReport) error {
	for _, tc := range report.Tables {
		var a, b int64
		if err := src.QueryRowContext(ctx, `SELECT count(*) FROM `+tc.Table).Scan(&a); err != nil {
			return fmt.Errorf("count source %s: %w", tc.Table, err)
		}
		if err := to.read.QueryRowContext(ctx, `SELECT count(*) FROM `+tc.Table).Scan(&b); err != nil {
			return fmt.Errorf("count target %s: %w", tc.Table, err)
		}
		if a != b || b != tc.Rows {
			return fmt.Errorf("verify %s: the source has %d rows, the target %d (%d copied)", tc.Table, a, b, tc.Rows)
		}
	}
	for t, q := range derivedTables {
		if q == "" {
			continue
		}
		var n1, s1, n2, s2 int64
		if err := src.QueryRowContext(ctx, q).Scan(&n1, &s1); err != nil {
			return fmt.Errorf("count source %s: %w", t, err)
		}
		if err := to.read.QueryRowContext(ctx, q).Scan(&n2, &s2); err != nil {
			return fmt.Errorf("count target %s: %w", t, err)
		}
		if n1 != n2 || s1 != s2 {
			return fmt.Errorf("verify %s: the source has %d rows counting %d, the target %d counting %d", t, n1, s1, n2, s2)
		}
	}
	return nil
}
