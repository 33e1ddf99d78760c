package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/demo"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
)

// The copy is tested on the demo data, which package demo makes (and which imports store:
// hence an external test).
var seedNow = time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)

// The demo data goes from SQLite to SQLite, and from SQLite to PostgreSQL and back, with
// every row of every table equal; a target with rows is refused; the copied PostgreSQL
// database hands out new ids past the copied ones.
func TestCopy(t *testing.T) {
	ctx := context.Background()
	src := store.OpenTestDB(t, testdb.SQLite, "source.db")
	if _, err := demo.Seed(ctx, src, demo.Options{Now: seedNow}); err != nil {
		t.Fatal(err)
	}
	// Tables the seed leaves empty get a row too.
	if err := src.CheckSigningKey(ctx, []byte("0123456789abcdef0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewRateLimiter(src, "public", 60, time.Minute).Take(ctx, "127.0.0.1", 1, seedNow); err != nil {
		t.Fatal(err)
	}
	tables := append(slices.Clone(store.CopyTables), "message_counts")
	store.FillEmptyTables(t, src)
	for _, table := range tables {
		if len(store.TableRows(t, src, table)) == 0 {
			t.Fatalf("%s is empty: the copy of its rows would go untested", table)
		}
	}

	check := func(t *testing.T, from, to *store.DB) {
		t.Helper()
		report, err := store.Copy(ctx, from, to, store.CopyOptions{BatchSize: 70})
		if err != nil {
			t.Fatal(err)
		}
		if report.Rows < 800 || len(report.Tables) != len(store.CopyTables) {
			t.Errorf("copied %d rows in %d tables", report.Rows, len(report.Tables))
		}
		for _, table := range tables {
			a, b := store.TableRows(t, src, table), store.TableRows(t, to, table)
			if !slices.Equal(a, b) {
				t.Errorf("%s: %d rows in the source, %d in the copy, or they differ", table, len(a), len(b))
			}
		}
		// Data versions (ETags of cached reads) go on from the clock on the copy, past every
		// version the source handed out: a client's ETag from the source never matches
		// different data on the copy.
		versions := func(db *store.DB) map[int64]int64 {
			vs := map[int64]int64{}
			rows, err := db.SQL().QueryContext(ctx, `SELECT account_id, sum(version) FROM data_versions GROUP BY account_id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var a, v int64
				if err := rows.Scan(&a, &v); err != nil {
					t.Fatal(err)
				}
				vs[a] = v
			}
			return vs
		}
		before, after := versions(from), versions(to)
		if len(before) == 0 {
			t.Fatal("the source has no data versions")
		}
		for account, v := range before {
			if after[account] <= v {
				t.Errorf("account %d: version %d on the copy, %d on the source: an old ETag could match", account, after[account], v)
			}
		}
		if _, err := store.Copy(ctx, from, to, store.CopyOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("a second copy into the same target: %v, want a refusal", err)
		}
	}
	t.Run("sqlite to sqlite", func(t *testing.T) {
		check(t, src, store.OpenTestDB(t, testdb.SQLite, "target.db"))
	})
	t.Run("sqlite to postgres and back", func(t *testing.T) {
		pg := store.OpenTestDB(t, testdb.Postgres, "")
		check(t, src, pg)
		var maxID, id int64
		if err := pg.SQL().QueryRow(`SELECT max(id) FROM accounts`).Scan(&maxID); err != nil {
			t.Fatal(err)
		}
		if err := store.WriteSQL(pg).QueryRow(`INSERT INTO accounts (number, name, created_at) VALUES ('9999', 'New', 0) RETURNING id`).Scan(&id); err != nil {
			t.Fatalf("insert after the copy: %v", err)
		}
		if id <= maxID {
			t.Errorf("new account id %d, want past the copied %d", id, maxID)
		}
		if _, err := store.WriteSQL(pg).Exec(`DELETE FROM accounts WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		check(t, pg, store.OpenTestDB(t, testdb.SQLite, "back.db"))
	})
}

// fillEmptyTables gives every table the seed leaves empty one row, made from its SQLite
// schema: parents' ids for foreign keys, text, bytes (0x00 and 0xff among them), times past
// 32 bits and 1 for the other numbers, so that every column's type crosses the engines.
