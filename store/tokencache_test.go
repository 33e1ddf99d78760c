package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
)

// newTokenCacheDB opens a SQLite database with one account, one member and their token.
func newTokenCacheDB(t testing.TB) (*DB, *TokenService, int64, string) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "tokencache.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	createTestAccounts(t, db, "1001")
	_, tokens, tok, plain := createTestToken(t, db, "one@example.com", "1001")
	return db, tokens, tok.ID, plain
}

// createTestToken creates a user of the accounts numbered and an API token of theirs.
func createTestToken(t testing.TB, db *DB, email string, accounts ...string) (*answerdesk.User, *TokenService, *answerdesk.Token, string) {
	t.Helper()
	ctx := context.Background()
	u, err := NewUserService(db).CreateUser(ctx, &answerdesk.UserCreate{Email: email, AccountNumbers: accounts})
	if err != nil {
		t.Fatal(err)
	}
	tokens := NewTokenService(db)
	tok, plain, err := tokens.CreateToken(ctx, u.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return u, tokens, tok, plain
}

// TestTokenCache: a lookup is served from the cache while the database is unchanged, not
// after any commit (by this handle or another on the file), and the token's last use is
// still recorded once per lastUsedGranularity.
func TestTokenCache(t *testing.T) {
	ctx := context.Background()
	db, tokens, tokenID, plain := newTokenCacheDB(t)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	hash := answerdesk.HashToken(plain)
	cachedNow := func() bool {
		t.Helper()
		pv, err := db.tokens.dataVersion()
		if err != nil {
			t.Fatal(err)
		}
		_, ok := db.tokens.get(hash, pv)
		return ok
	}
	lookup := func() int64 {
		t.Helper()
		c, v, err := tokens.AuthenticateTokenVersion(ctx, plain)
		if err != nil || c.TokenID != tokenID {
			t.Fatalf("lookup: %+v, %v", c, err)
		}
		return v
	}
	lastUsed := func() int64 {
		t.Helper()
		var ms int64
		if err := db.read.QueryRowContext(ctx, `SELECT last_used_at FROM api_tokens WHERE id = ?`, tokenID).Scan(&ms); err != nil {
			t.Fatal(err)
		}
		return ms
	}

	lookup() // records the first use: a commit, so nothing usable is cached yet
	if cachedNow() {
		t.Fatal("cached across the lookup's own last_used_at write")
	}
	v := lookup()
	if !cachedNow() {
		t.Fatal("not cached after a lookup on an unchanged database")
	}
	if got := lookup(); got != v {
		t.Fatalf("cached version %d, want %d", got, v)
	}
	// On an unchanged WAL-index header the lookups skip the probe itself.
	db.tokens.mu.Lock()
	started, skipped := db.tokens.started, db.tokens.skipped
	db.tokens.mu.Unlock()
	for range 3 {
		if got := lookup(); got != v {
			t.Fatalf("cached version %d, want %d", got, v)
		}
	}
	db.tokens.mu.Lock()
	if db.tokens.started != started || db.tokens.skipped != skipped+3 {
		t.Errorf("3 lookups on an unchanged database: %d probes and %d skipped, want 0 and 3",
			db.tokens.started-started, db.tokens.skipped-skipped)
	}
	db.tokens.mu.Unlock()

	other, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	insertTestMessages(t, other, "1001", 1, 1, now)
	if cachedNow() {
		t.Fatal("cached entry still served after another handle's commit")
	}
	if got := lookup(); got == v {
		t.Fatalf("version %d unchanged after a message was written", got)
	}

	now = now.Add(lastUsedGranularity)
	before := lastUsed()
	lookup()
	if after := lastUsed(); after != now.UnixMilli() || after == before {
		t.Fatalf("last_used_at %d -> %d, want %d", before, after, now.UnixMilli())
	}

	// A failed probe drops the connection and the entries; lookups still answer.
	lookup()
	db.tokens.mu.Lock()
	db.tokens.reset()
	db.tokens.mu.Unlock()
	if cachedNow() {
		t.Fatal("an entry survived the probe connection's reset")
	}
	lookup()
	lookup()
	if !cachedNow() {
		t.Fatal("not cached again after the probe was reopened")
	}
}

// BenchmarkTokenLookup compares the token lookup with and without the cache, and the
// cache's probe alone.
func BenchmarkTokenLookup(b *testing.B) {
	ctx := context.Background()
	db, tokens, _, plain := newTokenCacheDB(b)
	run := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := tokens.AuthenticateTokenVersion(ctx, plain); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("cached", run)
	b.Run("probe", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := db.tokens.dataVersion(); err != nil {
				b.Fatal(err)
			}
		}
	})
	tc := db.tokens
	db.tokens = nil
	defer func() { db.tokens = tc }()
	b.Run("query", run)
}

// TestTokenCacheSharedProbe: a request arriving while a probe runs is not answered by
// that probe, which may have read the version before a commit the request must see (a
// revocation), but by the next one; the requests waiting together share that next one.
func TestTokenCacheSharedProbe(t *testing.T) {
	ctx := context.Background()
	db, _, _, _ := newTokenCacheDB(t)
	tc := db.tokens
	first, err := tc.dataVersion()
	if err != nil {
		t.Fatal(err)
	}

	hold, release := make(chan struct{}), make(chan struct{})
	tc.probed = func() {
		tc.probed = nil // only the first probe below waits: it alone runs here
		close(hold)
		<-release
	}
	type result struct {
		pv  probeVersion
		err error
	}
	early := make(chan result, 1)
	go func() {
		pv, err := tc.dataVersion()
		early <- result{pv, err}
	}()
	<-hold // the early probe has read the version

	// A commit the early probe has not seen, then requests arriving while it still runs.
	if _, err := db.write.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = 1`); err != nil {
		t.Fatal(err)
	}
	const late = 3
	lates := make(chan result, late)
	for range late {
		go func() {
			pv, err := tc.dataVersion()
			lates <- result{pv, err}
		}()
	}
	for {
		tc.mu.Lock()
		w := tc.waiting
		tc.mu.Unlock()
		if w == late {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)

	e := <-early
	if e.err != nil || e.pv != first {
		t.Fatalf("early probe: %+v, %v; want %+v (read before the commit)", e.pv, e.err, first)
	}
	var seen []probeVersion
	for range late {
		r := <-lates
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.pv == first {
			t.Fatalf("a request arriving during a probe got that probe's version %+v, from before the commit", r.pv)
		}
		seen = append(seen, r.pv)
	}
	tc.mu.Lock()
	probes := tc.started
	tc.mu.Unlock()
	if probes != 3 {
		t.Errorf("%d probes for 1 + 1 + %d requests (%v), want 3: the late ones share one", probes, late, seen)
	}
}

// The probe waits at most 50 ms for a locked file: its DSN's later busy_timeout wins over
// the shared 10 s one.
func TestTokenCacheProbeBusyTimeout(t *testing.T) {
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "busy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	probe, err := sql.Open("sqlite", db.tokens.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	var ms int
	if err := probe.QueryRow("PRAGMA busy_timeout").Scan(&ms); err != nil {
		t.Fatal(err)
	}
	if ms != 50 {
		t.Errorf("the probe's busy_timeout is %d ms, want 50", ms)
	}
}
