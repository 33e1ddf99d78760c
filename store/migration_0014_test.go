package store

import (
	"context"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestMigrationKeepsBlacklistForEveryAccount: before migration 0014 the email blacklist was
// service-wide; an entry made then must go on refusing the address for every account.
// Running the migration's SQL again on a migrated database treats the existing entries as
// service-wide ones, which is the case to check.
func TestMigrationKeepsBlacklistForEveryAccount(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		db := openTestDB(t, engine, "m.db")
		if _, err := db.write.ExecContext(ctx, `INSERT INTO accounts (id, number, name, time_zone, created_at) VALUES (1, '1', 'A', 'UTC', 0), (2, '2', 'B', 'UTC', 0);
		INSERT INTO email_blacklist (account_id, email, created_at) VALUES (1, 'blocked@a.example', 7)`); err != nil {
			t.Fatal(err)
		}
		sql, err := db.d.migrationSQL("0014_account_email_blacklist.sql")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, sql); err != nil {
			t.Fatal(err)
		}
		for _, account := range []int64{1, 2} {
			var created int64
			if err := db.write.QueryRowContext(ctx, `SELECT created_at FROM email_blacklist WHERE account_id = ? AND email = 'blocked@a.example'`, account).Scan(&created); err != nil {
				t.Errorf("account %d: %v", account, err)
			} else if created != 7 {
				t.Errorf("account %d: created_at %d, want 7", account, created)
			}
		}
	})
}
