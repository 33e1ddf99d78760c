// Package store implements the answerdesk services over SQLite (modernc.org/sqlite, pure Go,
// the embedded default) or PostgreSQL (pgx), with one set of queries; dialect.go holds what
// differs between the engines.
//
// On SQLite, one writer connection serialises writes (SQLite allows one writer at a time;
// queuing in Go is cheaper than SQLITE_BUSY retries) and a pool of read-only connections
// serves reads concurrently through WAL. On PostgreSQL one pool serves both, and many
// processes may share the database.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/answerdesk/answerdesk"
	"modernc.org/sqlite" // also registers the "sqlite" driver the read pools open
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is an open answerdesk database.
type DB struct {
	path  string // the SQLite file, or the PostgreSQL URL
	d     dialect
	write *sql.DB
	read  *sql.DB
	rd    *stmtReader // reads through cached prepared statements
	// audio reads the database audio store's chunks: on SQLite a pool of its own whose
	// connections keep almost no page cache, since a stream reads each page once and
	// would otherwise fill the read pool's caches (16 MB a connection) with audio and push
	// out the pages of messages and tokens; on PostgreSQL the one pool.
	audio   *sql.DB
	audioRd *stmtReader
	// tokens caches verified API tokens while SQLite's data_version says nothing was
	// committed since (see authversion.go); nil on PostgreSQL.
	tokens *tokenCache
	// probe caches verified API tokens on PostgreSQL while the auth version is unchanged,
	// and reads data versions for concurrent requests together (versionprobe.go).
	probe *versionProbe
	// group commits concurrent message creates together on SQLite (groupcommit.go).
	group groupCommit
	// synchronous is the writer's PRAGMA synchronous mode (SynchronousFull or
	// SynchronousNormal), which writes of throwaway state lower for themselves.
	synchronous string

	// Now is the clock; tests replace it.
	Now func() time.Time
	// Secrets seals the credentials of delivery methods (set from the key file).
	Secrets *answerdesk.SecretBox
}

// Synchronous modes (SQLite's PRAGMA synchronous) for WithSynchronous.
const (
	// SynchronousFull syncs the WAL on every commit: an answered write survives a power
	// loss. The default.
	SynchronousFull = "FULL"
	// SynchronousNormal syncs only at checkpoints: an answered write survives a process
	// crash but not a power loss or kernel panic, for fewer writes to the disk.
	SynchronousNormal = "NORMAL"
)

// Option changes how Open opens the database.
type Option func(*options)

type options struct {
	synchronous string
	pool        Pool
}

// WithSynchronous sets SQLite's synchronous mode: SynchronousFull (default) or
// SynchronousNormal.
func WithSynchronous(mode string) Option { return func(o *options) { o.synchronous = mode } }

// Pool sizes the database's connection pool; a zero field takes the engine's default.
type Pool struct {
	// MaxConns is the pool's size: on PostgreSQL every connection of this process (default
	// DefaultPostgresConns), on SQLite the read connections (default max(4, 2 × GOMAXPROCS);
	// SQLite has one writer connection besides).
	MaxConns int
	// MaxLifetime closes a connection this long after it was opened (PostgreSQL; default
	// never), so that connections spread again over the servers behind a pooler or a
	// load balancer after one of them restarts.
	MaxLifetime time.Duration
}

// DefaultPostgresConns is the PostgreSQL pool's default size: with 32 concurrent requests on
// 2 cores, 8 and 32 connections served no more than 16 (docs: Scaling out), and three
// replicas of 16 stay within PostgreSQL's default max_connections (100).
const DefaultPostgresConns = 16

// WithPool sizes the connection pool.
func WithPool(p Pool) Option { return func(o *options) { o.pool = p } }

// Open opens the database at path and applies pending migrations. path is a SQLite file
// (created if needed) or a PostgreSQL URL (postgres:// or postgresql://; the database must
// exist).
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	o := options{synchronous: SynchronousFull}
	for _, opt := range opts {
		opt(&o)
	}
	if o.pool.MaxConns < 0 || o.pool.MaxLifetime < 0 {
		return nil, fmt.Errorf("pool %+v: want sizes and durations of 0 (the default) or more", o.pool)
	}
	if IsPostgresURL(path) {
		return openPostgresDB(ctx, path, o.pool)
	}
	switch o.synchronous = strings.ToUpper(o.synchronous); o.synchronous {
	case SynchronousFull, SynchronousNormal:
	default:
		return nil, fmt.Errorf("synchronous mode %q: want full or normal", o.synchronous)
	}
	if err := prepareFiles(path); err != nil {
		return nil, err
	}
	pragmas := []string{"foreign_keys(1)", "synchronous(" + o.synchronous + ")", "journal_mode(WAL)", "temp_store(MEMORY)", "cache_size(-16000)"}
	// dsn is the file's DSN with the shared pragmas, extra ones, and a 10 s busy_timeout
	// unless extra sets another (the driver applies the first one given).
	dsn := func(extra ...string) string {
		q := url.Values{}
		if !slices.ContainsFunc(extra, func(p string) bool { return strings.HasPrefix(p, "busy_timeout(") }) {
			q.Add("_pragma", "busy_timeout(10000)")
		}
		for _, p := range pragmas {
			// An extra pragma of the same name replaces the shared one.
			name, _, _ := strings.Cut(p, "(")
			if !slices.ContainsFunc(extra, func(e string) bool { return strings.HasPrefix(e, name+"(") }) {
				q.Add("_pragma", p)
			}
		}
		for _, p := range extra {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", "immediate")
		return "file:" + path + "?" + q.Encode()
	}
	db := &DB{path: path, d: sqliteDialect, Now: time.Now, synchronous: o.synchronous}
	var err error
	db.write = sql.OpenDB(stmtCacheConnector{drv: &sqlite.Driver{}, dsn: dsn()})
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxLifetime(0)
	db.write.SetConnMaxIdleTime(0)
	if err := db.write.PingContext(ctx); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		db.write.Close()
		return nil, err
	}
	if db.read, err = sql.Open("sqlite", dsn("query_only(1)")); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("open database %s for reading: %w", path, err)
	}
	db.rd = newStmtReader(db.read, true)
	// The probe gives up on a locked file after 50 ms:
	// a failed probe is a cache miss, and the lookup then waits under the request's own
	// context instead of every request queueing behind the probe for the full 10 s.
	plainFile := path
	if !isPlainFile(path) {
		plainFile = ""
	}
	db.tokens = newTokenCache(db.read.Driver(), dsn("query_only(1)", "busy_timeout(50)"), plainFile)
	n := max(4, 2*runtime.GOMAXPROCS(0))
	if o.pool.MaxConns > 0 {
		n = o.pool.MaxConns
	}
	db.read.SetMaxOpenConns(n)
	db.read.SetMaxIdleConns(n)
	db.read.SetConnMaxIdleTime(0)
	db.read.SetConnMaxLifetime(0)
	// 64 pages (256 KiB) per connection: enough for the b-tree's interior pages that
	// find a chunk; the chunk's own pages come from the OS's file cache.
	if db.audio, err = sql.Open("sqlite", dsn("query_only(1)", "cache_size(64)")); err != nil {
		db.read.Close()
		db.write.Close()
		return nil, fmt.Errorf("open database %s for audio: %w", path, err)
	}
	db.audio.SetMaxOpenConns(n)
	db.audio.SetMaxIdleConns(n)
	db.audio.SetConnMaxIdleTime(0)
	db.audioRd = newStmtReader(db.audio, true)
	return db, nil
}

// openPostgresDB opens one pool on a PostgreSQL database: PostgreSQL serves concurrent
// writers itself, so reads and writes share it.
func openPostgresDB(ctx context.Context, url string, p Pool) (*DB, error) {
	pool, err := openPostgres(url)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", redactURL(url), err)
	}
	// Every replica holds a pool: a few connections each keep a fleet within PostgreSQL's
	// default max_connections (100).
	// Idle connections are kept up to the same number: with fewer, a burst of more than that
	// many requests closes and reopens backends (and re-prepares statements) all the time
	// (1,684 sessions in 5 s of 16 clients, list p99 36 ms); idle ones still go after 5 minutes.
	n := DefaultPostgresConns
	if p.MaxConns > 0 {
		n = p.MaxConns
	}
	pool.SetMaxOpenConns(n)
	pool.SetMaxIdleConns(n)
	pool.SetConnMaxIdleTime(5 * time.Minute)
	pool.SetConnMaxLifetime(p.MaxLifetime)
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open database %s: %w", redactURL(url), err)
	}
	db := &DB{path: url, d: postgresDialect, write: pool, read: pool, audio: pool, Now: time.Now}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	// pgx prepares and caches each statement per connection itself.
	db.rd = newStmtReader(pool, false)
	db.audioRd = db.rd
	db.probe = newVersionProbe(db)
	return db, nil
}

// redactURL is a database URL without its password, for messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable database URL)"
	}
	// pgx also takes the password as a query parameter.
	if q := u.Query(); q.Has("password") || q.Has("sslpassword") {
		for _, k := range []string{"password", "sslpassword"} {
			if q.Has(k) {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// isPlainFile reports whether path names a database file, not an in-memory database, a
// file: URI or a server URL.
func isPlainFile(path string) bool {
	return path != "" && path != ":memory:" && !strings.HasPrefix(path, "file:") && !strings.Contains(path, "://")
}

// prepareFiles creates the database's directory (0700) and file (0600) before SQLite opens
// it: they hold message content and password hashes, so only the service's user may read
// them. SQLite creates the -wal and -shm files with the database file's mode, so they
// follow. Modes are set with chmod after creating, so the process's umask cannot widen (or
// narrow) them. An existing file that others may read is tightened to 0600; an existing
// directory is the operator's and is left as it is.
func prepareFiles(path string) error {
	if !isPlainFile(path) {
		return nil // nothing to prepare
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create database directory: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("database directory mode: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("create database file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("database file: %w", err)
	}
	if info.Size() == 0 || info.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("database file mode: %w", err)
		}
	}
	for _, side := range []string{path + "-wal", path + "-shm"} {
		if info, err := os.Stat(side); err == nil && info.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(side, 0o600); err != nil {
				return fmt.Errorf("database file mode: %w", err)
			}
		}
	}
	return nil
}

// Close closes both pools, then the token cache: its WAL-index descriptor is the last of
// the database's files this process closes, so SQLite's locks last as long as its
// connections do.
func (db *DB) Close() error {
	db.rd.close()
	db.audioRd.close()
	var err error
	if db.read == db.write {
		err = db.write.Close()
	} else {
		err = errors.Join(db.audio.Close(), db.read.Close(), db.write.Close())
	}
	db.tokens.close()
	return err
}

// Path is the database file's path, or the PostgreSQL URL.
func (db *DB) Path() string { return db.path }

// SQL is the pool that serves reads, for tests and tools that read rows directly (on SQLite
// it refuses writes). Queries take ? placeholders on both engines.
func (db *DB) SQL() *sql.DB { return db.read }

// Postgres reports whether the database is PostgreSQL (not SQLite).
func (db *DB) Postgres() bool { return db.d.postgres }

func (db *DB) now() time.Time { return db.Now().UTC() }

type migration struct {
	version int
	name    string
	sql     string
}

// migrationList returns this engine's migrations in number order, each rendered for it. They
// are embedded, so each engine's are rendered once (about 1 ms) and serve every Open and
// every readiness check after.
//
// Migrations are one file per number in migrations/, named NNNN_what.sql, and each is a
// text/template that both engines render with their dialect's ddl: the file holds what the
// engines share once, names the words that differ ({{.ID}}, {{.BigInt}}, {{.Blob}},
// {{.WithoutRowID}}, {{.NowMs}}; see ddl), and keeps the parts that differ in structure side
// by side under {{if .Postgres}} ... {{else}} ... {{end}}. A directive on a line of its own
// is written {{- ...}}, which removes the line break before it, so the rendered SQL has the
// lines of the file with the directive lines taken out (a blank line therefore goes after a
// directive line, not before; on a file's first line, {{... -}} removes the break after).
//
// schema_migrations records a migration by its number and file name (no checksum), and the
// names are those of the per-engine files they replaced. A released migration must go on
// rendering to exactly the SQL each engine ran when it was released, comments included
// (SQLite keeps a CREATE statement's text in sqlite_schema): testdata/migrations.sha256 holds
// the hash of each and TestMigrationsRunTheSQLTheyAlwaysRan checks it.
func (d dialect) migrationList() ([]migration, error) {
	if d.postgres {
		return postgresMigrations()
	}
	return sqliteMigrations()
}

var (
	sqliteMigrations   = sync.OnceValues(sqliteDialect.renderMigrations)
	postgresMigrations = sync.OnceValues(postgresDialect.renderMigrations)
)

// renderMigrations renders every file in migrations/ for this engine, in number order.
func (d dialect) renderMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, migrationDir)
	if err != nil {
		return nil, err
	}
	ms := make([]migration, 0, len(entries))
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s/%s: name must start with a number and _", migrationDir, e.Name())
		}
		sql, err := d.migrationSQL(e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: sql})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s have one number", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// migrationDir is the folder of the migration templates in migrationFS.
const migrationDir = "migrations"

// migrationSQL returns the SQL of the migration file name as this engine runs it.
func (d dialect) migrationSQL(name string) (string, error) {
	b, err := migrationFS.ReadFile(migrationDir + "/" + name)
	if err != nil {
		return "", fmt.Errorf("migration %s: %w", name, err)
	}
	t, err := template.New(name).Parse(string(b))
	if err != nil {
		return "", fmt.Errorf("migration %s: %w", name, err)
	}
	var sql strings.Builder
	words := d.ddl
	words.Postgres = d.postgres
	if err := t.Execute(&sql, words); err != nil {
		return "", fmt.Errorf("migration %s: %w", name, err)
	}
	return sql.String(), nil
}

// migrate applies every embedded migration not yet recorded, each in its own transaction.
func (db *DB) migrate(ctx context.Context) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if db.d.migrationLock != "" {
			if _, err := tx.ExecContext(ctx, db.d.migrationLock); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	ms, err := db.d.migrationList()
	if err != nil {
		return fmt.Errorf("read migrations: %w", err)
	}
	for _, m := range ms {
		var n int
		if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
			return fmt.Errorf("check migration %s: %w", m.name, err)
		}
		if n > 0 {
			continue
		}
		err := db.tx(ctx, func(tx *sql.Tx) error {
			if db.d.migrationLock != "" {
				// Another replica may have applied it while this one waited for the lock.
				if _, err := tx.ExecContext(ctx, db.d.migrationLock); err != nil {
					return err
				}
				var n int
				if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil || n > 0 {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`, m.version, m.name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	return nil
}

// Ready reports whether the database answers and every embedded migration is applied.
func (db *DB) Ready(ctx context.Context) error {
	ms, err := db.d.migrationList()
	if err != nil {
		return err
	}
	var applied int
	if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	if applied < len(ms) {
		return fmt.Errorf("%d of %d migrations applied", applied, len(ms))
	}
	return nil
}

// tx runs fn in a write transaction, committing when it returns nil.
//
// On SQLite the transaction holds the only writer connection (_txlock=immediate), so what fn
// reads no one else changes before it commits. On PostgreSQL it runs SERIALIZABLE, which
// gives fn the same guarantee against every other writer (of any replica) by failing one of
// two conflicting transactions; the failed one is run again from the start, at most
// maxTxAttempts times. fn may therefore run more than once: it must set, not accumulate,
// what it leaves outside the transaction.
func (db *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	var opts *sql.TxOptions
	if db.d.postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelSerializable}
	}
	for attempt := 1; ; attempt++ {
		err := db.tx1(ctx, opts, fn)
		if err == nil || !db.d.postgres || !retryable(err) || attempt == maxTxAttempts || ctx.Err() != nil {
			return err
		}
		retryPause(attempt)
	}
}

// retryPause waits before the next run of a failed transaction: a growing (1 ms doubling,
// at most 64 ms), jittered pause, so the transaction that won finishes first and the losers
// do not collide again in step.
func retryPause(attempt int) {
	d := time.Millisecond << min(attempt-1, 6)
	time.Sleep(d/2 + time.Duration(rand.Int64N(int64(d))))
}

// txReadCommitted is tx at READ COMMITTED on PostgreSQL (on SQLite it is tx), for
// transactions whose correctness rests on row locks and single-statement conditions, not on
// what they read staying as read: claims of work rows with d.claim (the locks make a claim
// exclusive, see dialect.go), and creating a message (whose counter row every concurrent
// create in the account updates: at READ COMMITTED they queue on it instead of failing).
func (db *DB) txReadCommitted(ctx context.Context, fn func(*sql.Tx) error) error {
	if !db.d.postgres {
		return db.tx(ctx, fn)
	}
	opts := &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	for attempt := 1; ; attempt++ {
		err := db.tx1(ctx, opts, fn)
		if err == nil || !retryable(err) || attempt == maxTxAttempts || ctx.Err() != nil {
			return err
		}
		retryPause(attempt)
	}
}

func (db *DB) tx1(ctx context.Context, opts *sql.TxOptions, fn func(*sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// Helpers converting between SQLite values and domain values.

func msPtr(ms *int64) *answerdesk.Time {
	if ms == nil {
		return nil
	}
	t := fromMS(*ms)
	return &t
}

func fromMS(ms int64) answerdesk.Time { return answerdesk.Time{Time: time.UnixMilli(ms).UTC()} }

// pageClause is the LIMIT and OFFSET of page p, the limit written into the SQL and the
// offset a parameter (its value follows the query's other arguments). SQLite plans with the
// value of a LIMIT, so a statement whose LIMIT is a parameter is compiled again on every run
// (about 20 µs for a plain list, 0.2 ms for a message search); page sizes are few, offsets
// many.
func pageClause(p answerdesk.Paging) string {
	return "LIMIT " + strconv.Itoa(p.PageSize) + " OFFSET ?"
}

// placeholders returns "?, ?, ?" for n values.
func placeholders(n int) string {
	if n == 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}
