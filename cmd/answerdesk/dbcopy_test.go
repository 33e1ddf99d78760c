package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// db copy moves the demo data into an empty database of either engine, says what it
// copied, and refuses to copy into a database that has rows.
func TestDBCopyCommand(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "source.db")
	if out, err := runCmd(t, "", "seed", "--db", src); err != nil {
		t.Fatalf("seed: %v %s", err, out)
	}
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		to := testdb.DSN(t, engine, "target.db")
		out, err := runCmd(t, "", "db", "copy", "--from", src, "--to", to)
		if err != nil || !regexp.MustCompile(`messages\s+500 rows`).MatchString(out) || !strings.Contains(out, "row counts verified") {
			t.Fatalf("db copy: %v\n%s", err, out)
		}
		if out, err := runCmd(t, "", "token", "list", "--db", to); err != nil || !strings.Contains(out, "owner@acme.example") {
			t.Errorf("the copy does not serve the demo tokens: %v\n%s", err, out)
		}
		out, err = runCmd(t, "", "db", "copy", "--from", src, "--to", to)
		if err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("a second copy into the same database: %v\n%s", err, out)
		}
	})
	for _, args := range [][]string{
		{"db", "copy", "--to", filepath.Join(dir, "x.db")},
		{"db", "copy", "--from", src, "--to", src},
		{"db", "copy", "--from", src, "--to", filepath.Join(dir, "y.db"), "--batch-size", "0"},
	} {
		if _, err := runCmd(t, "", args...); exitCode(err, &strings.Builder{}) != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	if _, err := runCmd(t, "", "db", "copy", "--from", filepath.Join(dir, "missing.db"), "--to", filepath.Join(dir, "z.db")); err == nil ||
		!strings.Contains(err.Error(), "missing.db") {
		t.Errorf("a missing source: %v", err)
	}
}
