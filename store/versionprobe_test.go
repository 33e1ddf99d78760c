package store

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestVersionProbe: on PostgreSQL a known token is served from memory while the auth version
// is unchanged, and a revocation, a disabled user, a changed membership or a new message made
// through another handle on the database (another replica, the CLI) is seen by the very next
// lookup.
func TestVersionProbe(t *testing.T) {
	if !slices.Contains(testdb.Engines(), testdb.Postgres) {
		t.Skip("the probe is PostgreSQL's; SQLite's cache is tested by TestTokenCache")
	}
	ctx := context.Background()
	db := openTestDB(t, testdb.Postgres, "")
	accounts := createTestAccounts(t, db, "1001", "1002")
	u, tokens, tok, plain := createTestToken(t, db, "one@example.com", "1001")
	other, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	admin := &answerdesk.Caller{Admin: true, Scopes: answerdesk.AllScopes}

	lookup := func(plain string) (*answerdesk.Caller, int64, error) {
		t.Helper()
		return tokens.AuthenticateTokenVersion(ctx, plain)
	}
	probes := db.probe.batcher.count
	c, v, err := lookup(plain)
	if err != nil || c.TokenID != tok.ID || !slices.Equal(c.AccountIDs, []int64{accounts[0].ID}) {
		t.Fatalf("first lookup: %+v, %v", c, err)
	}
	if want, err := db.DataVersion(ctx, c); err != nil || v != want {
		t.Fatalf("version %d, DataVersion %d (%v)", v, want, err)
	}

	// Served from memory: an email changed behind the triggers' back is not seen, and a
	// probe ran instead of the lookup.
	if _, err := db.write.ExecContext(ctx, `ALTER TABLE users DISABLE TRIGGER users_auth_version`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `UPDATE users SET email = 'renamed@example.com' WHERE id = ?`, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, `ALTER TABLE users ENABLE TRIGGER users_auth_version`); err != nil {
		t.Fatal(err)
	}
	before := probes()
	c, v2, err := lookup(plain)
	if err != nil || c.Email != "one@example.com" || v2 != v {
		t.Fatalf("cached lookup: %+v, version %d (want %d), %v", c, v2, v, err)
	}
	if probes() != before+1 {
		t.Fatalf("%d probes for one cached lookup, want 1", probes()-before)
	}
	// With the trigger in place, the same change through another handle is seen at once.
	if _, err := other.write.ExecContext(ctx, `UPDATE users SET email = 'other@example.com' WHERE id = ?`, u.ID); err != nil {
		t.Fatal(err)
	}
	if c, _, err := lookup(plain); err != nil || c.Email != "other@example.com" {
		t.Fatalf("after an email change: %+v, %v", c, err)
	}

	// A new message in the caller's account moves the version served with the cached token.
	insertTestMessages(t, other, "1001", 1, 1, time.Now())
	if _, v3, err := lookup(plain); err != nil || v3 == v {
		t.Fatalf("version %d after a message (was %d), %v", v3, v, err)
	}
	// A message in another account does not.
	_, v, _ = lookup(plain)
	insertTestMessages(t, other, "1002", 1, 1, time.Now())
	if _, v3, err := lookup(plain); err != nil || v3 != v {
		t.Fatalf("version %d after a message in another account (was %d), %v", v3, v, err)
	}

	// A membership added elsewhere.
	adminSvc := NewAdminService(other, NewUserService(other))
	if _, err := adminSvc.UpdateUser(ctx, admin, "other@example.com", &answerdesk.UserUpdate{Accounts: &[]string{"1001", "1002"}}); err != nil {
		t.Fatal(err)
	}
	if c, _, err := lookup(plain); err != nil || len(c.AccountIDs) != 2 {
		t.Fatalf("after a membership was added: %+v, %v", c, err)
	}

	// The user disabled, then enabled.
	yes, no := true, false
	if _, err := adminSvc.UpdateUser(ctx, admin, "other@example.com", &answerdesk.UserUpdate{Disabled: &yes}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lookup(plain); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
		t.Fatalf("disabled user's token: %v", err)
	}
	if _, err := adminSvc.UpdateUser(ctx, admin, "other@example.com", &answerdesk.UserUpdate{Disabled: &no}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lookup(plain); err != nil {
		t.Fatalf("enabled again: %v", err)
	}

	// The token revoked.
	if err := NewTokenService(other).RevokeToken(ctx, 0, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lookup(plain); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
		t.Fatalf("revoked token: %v", err)
	}
}

// TestVersionProbeShared: concurrent lookups of known tokens share probes, and each gets the
// data version of its own caller's accounts.
func TestVersionProbeShared(t *testing.T) {
	if !slices.Contains(testdb.Engines(), testdb.Postgres) {
		t.Skip("the probe is PostgreSQL's")
	}
	ctx := context.Background()
	db := openTestDB(t, testdb.Postgres, "")
	createTestAccounts(t, db, "1001", "1002")
	now := time.Now()
	insertTestMessages(t, db, "1001", 3, 1, now)
	insertTestMessages(t, db, "1002", 2, 1, now)
	var tokens *TokenService
	var plains []string
	for i, acct := range []string{"1001", "1002"} {
		var plain string
		_, tokens, _, plain = createTestToken(t, db, []string{"a@example.com", "b@example.com"}[i], acct)
		plains = append(plains, plain)
	}
	want := make([]int64, len(plains))
	for i, plain := range plains {
		c, v, err := tokens.AuthenticateTokenVersion(ctx, plain)
		if err != nil {
			t.Fatal(err)
		}
		if want[i], err = db.DataVersion(ctx, c); err != nil || v != want[i] {
			t.Fatalf("token %d: version %d, DataVersion %d (%v)", i, v, want[i], err)
		}
	}
	if want[0] == want[1] {
		t.Fatalf("both accounts have version %d: the test could not tell them apart", want[0])
	}
	before := db.probe.batcher.count()
	const workers, each = 32, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for range each {
				_, v, err := tokens.AuthenticateTokenVersion(ctx, plains[w%2])
				if err == nil && v != want[w%2] {
					err = errors.New("a caller got another account set's version")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	n := db.probe.batcher.count() - before
	t.Logf("%d lookups, %d probes", workers*each, n)
	if n == 0 || n >= workers*each {
		t.Errorf("%d probes for %d concurrent lookups: none shared", n, workers*each)
	}
}

// TestShardedCounts: on PostgreSQL, concurrent creates and changes in one account spread
// over several counter and version rows, and the sums are the counts.
func TestShardedCounts(t *testing.T) {
	if !slices.Contains(testdb.Engines(), testdb.Postgres) {
		t.Skip("the shards are PostgreSQL's")
	}
	ctx := context.Background()
	db := openTestDB(t, testdb.Postgres, "")
	createTestAccounts(t, db, "1001")
	admin := &answerdesk.Caller{Admin: true, Scopes: answerdesk.AllScopes}
	msgs := NewMessageService(db)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ids []int64
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range each {
				m, err := msgs.CreateMessage(ctx, admin, &answerdesk.MessageCreate{AccountNumber: "1001", Content: "hello", Origin: answerdesk.OriginAPI})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				ids = append(ids, m.ID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, id := range ids[:15] {
		if _, err := msgs.AcknowledgeMessage(ctx, admin, strconv.FormatInt(id, 10)); err != nil {
			t.Fatal(err)
		}
	}
	var shards int
	if err := db.read.QueryRowContext(ctx, `SELECT count(DISTINCT shard) FROM message_counts`).Scan(&shards); err != nil {
		t.Fatal(err)
	}
	if shards < 2 {
		t.Errorf("the counts are in %d shard(s): concurrent creates queued on one row", shards)
	}
	for status, want := range map[string]int{answerdesk.StatusNew: workers*each - 15, answerdesk.StatusAcknowledged: 15} {
		_, meta, err := msgs.FindMessages(ctx, admin, answerdesk.MessageQuery{Status: status, Paging: answerdesk.Paging{Page: 1, PageSize: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if meta.Total != want {
			t.Errorf("status %s: total %d, want %d", status, meta.Total, want)
		}
	}
}
