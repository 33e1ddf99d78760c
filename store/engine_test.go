package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

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

// createTestAccounts creates an account of each number, named "Account <number>", the
// setup of most tests of this package.
func createTestAccounts(t testing.TB, db *DB, numbers ...string) []*answerdesk.Account {
	t.Helper()
	accounts := make([]*answerdesk.Account, len(numbers))
	for i, n := range numbers {
		a, err := db.CreateAccount(context.Background(), n, "Account "+n, "")
		if err != nil {
			t.Fatalf("create account %s: %v", n, err)
		}
		accounts[i] = a
	}
	return accounts
}

// insertTestMessages bulk-loads n messages into the account, spread over the `days` days
// before now, with a mix of the columns the counts and filters look at (origin, status,
// read). The realistic demo messages are package demo's, which imports store.
func insertTestMessages(t *testing.T, db *DB, accountNumber string, n, days int, now time.Time) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(n), uint64(now.UnixMilli())))
	err := db.BulkLoad(ctx, func(b *Bulk) error {
		a, err := b.Account(ctx, accountNumber)
		if err != nil {
			return err
		}
		first, err := b.MaxMessageID(ctx)
		if err != nil {
			return err
		}
		rows := make([]*MessageRow, n)
		for i := range rows {
			created := now.Add(-time.Duration(r.Int64N(int64(days) * int64(24*time.Hour)))).UnixMilli()
			rows[i] = &MessageRow{UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", first+int64(i)+1), AccountID: a.ID,
				Content: "Test message", Status: answerdesk.Statuses[r.IntN(len(answerdesk.Statuses))],
				Origin: answerdesk.Origins[r.IntN(len(answerdesk.Origins))], Read: r.IntN(2) == 0,
				CreatedAt: created, UpdatedAt: created, Answers: "{}"}
		}
		return b.InsertMessages(ctx, rows)
	})
	if err != nil {
		t.Fatalf("insert %d messages into %s: %v", n, accountNumber, err)
	}
}

// count runs a count query.
func count(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.read.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
