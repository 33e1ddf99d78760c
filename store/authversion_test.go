package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestAuthenticateTokenVersion: the token lookup that also reads the data version answers
// the same caller as AuthenticateToken and the same version as DataVersion for that caller
// (a member of one account, of two, of none, an admin), follows every write at once, and
// refuses a revoked token or a disabled user on the very next request.
func TestAuthenticateTokenVersion(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, testdb.SQLite, "authversion.db")
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, a := range createTestAccounts(t, db, "1001", "1002", "1003") {
		insertTestMessages(t, db, a.Number, 3, 1, now)
	}
	users, tokens := NewUserService(db), NewTokenService(db)
	newToken := func(email string, admin bool, accounts ...string) (int64, string) {
		t.Helper()
		u, err := users.CreateUser(ctx, &answerdesk.UserCreate{Email: email, Admin: admin, AccountNumbers: accounts})
		if err != nil {
			t.Fatal(err)
		}
		tok, plain, err := tokens.CreateToken(ctx, u.ID, "test")
		if err != nil {
			t.Fatal(err)
		}
		return tok.ID, plain
	}
	type user struct {
		name  string
		plain string
	}
	_, one := newToken("one@example.com", false, "1001")
	_, two := newToken("two@example.com", false, "1001", "1002")
	_, none := newToken("none@example.com", false)
	_, admin := newToken("admin@example.com", true)
	all := []user{{"one_account", one}, {"two_accounts", two}, {"no_account", none}, {"admin", admin}}

	check := func(t *testing.T) map[string]int64 {
		t.Helper()
		got := map[string]int64{}
		for _, u := range all {
			c, v, err := tokens.AuthenticateTokenVersion(ctx, u.plain)
			if err != nil {
				t.Fatalf("%s: %v", u.name, err)
			}
			plain, err := tokens.AuthenticateToken(ctx, u.plain)
			if err != nil {
				t.Fatal(err)
			}
			if c.UserID != plain.UserID || c.Admin != plain.Admin || !slices.Equal(c.AccountIDs, plain.AccountIDs) || c.TokenID != plain.TokenID {
				t.Fatalf("%s: caller %+v, AuthenticateToken says %+v", u.name, c, plain)
			}
			want, err := db.DataVersion(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if v != want {
				t.Fatalf("%s: version %d, DataVersion %d", u.name, v, want)
			}
			got[u.name] = v
		}
		return got
	}
	before := check(t)
	if before["two_accounts"] <= before["one_account"] || before["admin"] <= before["two_accounts"] || before["no_account"] != 0 {
		t.Fatalf("versions %v: want none 0 < one account < two < admin (every account)", before)
	}
	// A write to account 1002 changes the version of its members and of the admin only.
	if _, err := db.write.ExecContext(ctx, `UPDATE messages SET escalation_counter = escalation_counter + 1 WHERE id = (SELECT min(id) FROM messages WHERE account_id = (SELECT id FROM accounts WHERE number = '1002'))`); err != nil {
		t.Fatal(err)
	}
	after := check(t)
	for name, changed := range map[string]bool{"one_account": false, "two_accounts": true, "no_account": false, "admin": true} {
		if (after[name] != before[name]) != changed {
			t.Errorf("%s: version %d -> %d; changed should be %v", name, before[name], after[name], changed)
		}
	}

	t.Run("revoked_token", func(t *testing.T) {
		id, plain := newToken("revoked@example.com", false, "1001")
		if _, _, err := tokens.AuthenticateTokenVersion(ctx, plain); err != nil {
			t.Fatal(err)
		}
		if err := tokens.RevokeToken(ctx, 0, id); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tokens.AuthenticateTokenVersion(ctx, plain); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
			t.Fatalf("revoked token: %v, want unauthorized", err)
		}
	})
	t.Run("disabled_user", func(t *testing.T) {
		_, plain := newToken("disabled@example.com", false, "1001")
		if _, err := db.write.ExecContext(ctx, `UPDATE users SET disabled_at = 1 WHERE email = 'disabled@example.com'`); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tokens.AuthenticateTokenVersion(ctx, plain); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
			t.Fatalf("disabled user: %v, want unauthorized", err)
		}
	})
	t.Run("unknown_and_malformed", func(t *testing.T) {
		for _, plain := range []string{"", "nope", one[:len(one)-1] + "x"} {
			if _, _, err := tokens.AuthenticateTokenVersion(ctx, plain); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
				t.Fatalf("%q: %v, want unauthorized", plain, err)
			}
		}
	})
}
