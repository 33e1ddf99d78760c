// Package testdb gives tests a fresh database on either engine: a SQLite file in the test's
// temporary directory, or a new PostgreSQL database created on the test server and dropped
// when the test ends.
//
// The PostgreSQL server is ANSWERDESK_TEST_POSTGRES (a URL), by default the local one
// (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); "make postgres" starts a
// throwaway one where none answers. A test that needs PostgreSQL and finds no server fails
// when CI=true and is skipped, loudly, otherwise.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Engines are the engines a suite runs on.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// DefaultPostgres is the server tests use when ANSWERDESK_TEST_POSTGRES is not set.
const DefaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Engine is the engine that suites built on one database (internal/testapp) run on:
// ANSWERDESK_TEST_ENGINE, sqlite when unset. "make test" runs them on both.
func Engine() string {
	if e := os.Getenv("ANSWERDESK_TEST_ENGINE"); e != "" {
		return e
	}
	return SQLite
}

// Engines lists the engines suites that loop over them run on: both, or only
// ANSWERDESK_TEST_ENGINE when it is set (make test's PostgreSQL pass would otherwise run
// every looping test on SQLite a second time).
func Engines() []string {
	if e := os.Getenv("ANSWERDESK_TEST_ENGINE"); e != "" {
		return []string{e}
	}
	return []string{SQLite, Postgres}
}

// ForEachEngine runs fn as a subtest named after each engine.
func ForEachEngine(t *testing.T, fn func(t *testing.T, engine string)) {
	t.Helper()
	for _, engine := range Engines() {
		t.Run(engine, func(t *testing.T) { fn(t, engine) })
	}
}

// DSN returns a fresh database for the engine: a SQLite file path named name in a temporary
// directory, or the URL of a new PostgreSQL database.
func DSN(t testing.TB, engine, name string) string {
	t.Helper()
	switch engine {
	case SQLite:
		return filepath.Join(t.TempDir(), name)
	case Postgres:
		return PostgresURL(t)
	}
	t.Fatalf("testdb: unknown engine %q (want %s or %s)", engine, SQLite, Postgres)
	return ""
}

var (
	serverOnce sync.Once
	server     *sql.DB
	serverURL  string
	serverErr  error
)

func adminServer() (*sql.DB, string, error) {
	serverOnce.Do(func() {
		serverURL = os.Getenv("ANSWERDESK_TEST_POSTGRES")
		if serverURL == "" {
			serverURL = DefaultPostgres
		}
		server, serverErr = sql.Open("pgx", serverURL)
		if serverErr != nil {
			return
		}
		server.SetMaxOpenConns(2)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if serverErr = server.PingContext(ctx); serverErr == nil {
			sweep(ctx, server)
		}
	})
	return server, serverURL, serverErr
}

// PostgresURL creates an empty PostgreSQL database for the test and returns its URL; the
// database is dropped (its connections ended) when the test ends.
func PostgresURL(t testing.TB) string {
	t.Helper()
	admin, base, err := adminServer()
	if err != nil {
		msg := fmt.Sprintf("no PostgreSQL server answers at %s (%v): set ANSWERDESK_TEST_POSTGRES or run \"make postgres\"", redact(base), err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("!!! SKIPPED (PostgreSQL): " + msg)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := fmt.Sprintf("%s%d_%s", prefix, time.Now().Unix(), hex.EncodeToString(b))
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	// A test database outlives no crash: its commits need not wait for the disk (on this
	// machine's server that made the suites several times faster).
	if _, err := admin.ExecContext(ctx, "ALTER DATABASE "+name+" SET synchronous_commit = off"); err != nil {
		t.Fatalf("configure database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("ANSWERDESK_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// prefix starts the name of every test database; the creation time (unix seconds) follows.
const prefix = "answerdesk_t_"

// sweep drops test databases left behind by test processes that were killed before their
// cleanup ran: those created more than an hour ago (no test runs that long; a younger one
// may belong to a test running now in another package's process).
func sweep(ctx context.Context, admin *sql.DB) {
	rows, err := admin.QueryContext(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 'answerdesk\_t\_%'`)
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		created, _, _ := strings.Cut(strings.TrimPrefix(name, prefix), "_")
		if sec, err := strconv.ParseInt(created, 10, 64); err == nil && time.Since(time.Unix(sec, 0)) > time.Hour {
			stale = append(stale, name)
		}
	}
	rows.Close()
	for _, name := range stale {
		_, _ = admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
}

func redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return strings.Repeat("*", 8)
}
