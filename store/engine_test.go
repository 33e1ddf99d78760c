package store

import (
	"context"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// forEachEngine runs fn as a subtest on SQLite and on PostgreSQL.
func forEachEngine(t *testing.T, fn func(t *testing.T, engine string)) {
	t.Helper()
	for _, engine := range testdb.Engines() {
		t.Run(engine, func(t *testing.T) { fn(t, engine) })
	}
}

// openTestDB opens a fresh database on the engine, closed when the test ends.
func openTestDB(t *testing.T, engine, name string) *DB {
	t.Helper()
	db, err := Open(context.Background(), testdb.DSN(t, engine, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
