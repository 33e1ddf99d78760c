package store

import (
	"database/sql"
	"testing"
)

// What the external tests (package store_test, which may import package demo) use of the
// internal ones.
var (
	CopyTables      = copyTables
	TableRows       = tableRows
	FillEmptyTables = fillEmptyTables
)

// OpenTestDB opens a fresh database on the engine, closed when the test ends.
func OpenTestDB(t *testing.T, engine, name string) *DB { return openTestDB(t, engine, name) }

// WriteSQL is the database's writing pool, for writes no method makes.
func WriteSQL(db *DB) *sql.DB { return db.write }
