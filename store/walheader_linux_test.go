//go:build linux

package store

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestTokenLookupsKeepSQLiteLocks: verifying tokens (which reads the WAL-index header) leaves
// the process holding SQLite's lock on the -shm file. On Linux, closing any descriptor of a
// file drops every POSIX lock the process holds on it, SQLite's included.
func TestTokenLookupsKeepSQLiteLocks(t *testing.T) {
	ctx := context.Background()
	db, tokens, _, plain := newTokenCacheDB(t)
	holds := func(when string) {
		t.Helper()
		if !testdb.HoldsSHMLock(t, os.Getpid(), db.path) {
			t.Fatalf("%s: the process holds no lock on byte %d of the -shm file", when, testdb.SHMDeadManSwitch)
		}
	}
	holds("after opening")
	for i := range 5 {
		if _, _, err := tokens.AuthenticateTokenVersion(ctx, plain); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, `UPDATE accounts SET name = name`); err != nil {
			t.Fatal(err)
		}
		holds(fmt.Sprintf("after lookup %d", i+1))
	}
}
