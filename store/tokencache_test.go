package store

import (
	"context"
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
	if _, err := db.CreateAccount(ctx, "1001", "Account 1001", ""); err != nil {
		t.Fatal(err)
	}
	u, err := NewUserService(db).CreateUser(ctx, &answerdesk.UserCreate{Email: "one@example.com", AccountNumbers: []string{"1001"}})
	if err != nil {
		t.Fatal(err)
	}
	tokens := NewTokenService(db)
	tok, plain, err := tokens.CreateToken(ctx, u.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	return db, tokens, tok.ID, plain
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
