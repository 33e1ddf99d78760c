package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Backup copies a SQLite database (on PostgreSQL it refuses: that is pg_dump's job).
// It writes a consistent copy of the database to a new file with VACUUM INTO: it runs
// while the service serves (it reads one snapshot; writers are not blocked in WAL mode) and
// the copy is compact and needs no -wal file. The target must not exist. The copy is then
// opened and checked with PRAGMA quick_check, so a backup that reports success restores.
func (db *DB) Backup(ctx context.Context, to string) error {
	if db.d.postgres {
		return errors.New("db backup copies a SQLite file; back up a PostgreSQL database with pg_dump (pg_dump --format=custom --file=answerdesk.dump URL) or the server's own backups")
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("backup target %s exists: choose a new file name", to)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup target %s: %w", to, err)
	}
	if dir := filepath.Dir(to); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return fmt.Errorf("create backup directory: %w", err)
		}
	}
	// A connection of its own: the reader pool is query_only, which refuses VACUUM INTO,
	// and the writer connection would hold up the service's writes for the whole copy.
	src, err := sql.Open("sqlite", "file:"+db.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("open %s for backup: %w", db.path, err)
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		_ = os.Remove(to) // no half-written backup left to be mistaken for one
		return fmt.Errorf("back up %s to %s: %w", db.path, to, err)
	}
	check, err := sql.Open("sqlite", "file:"+to+"?mode=ro")
	if err != nil {
		return fmt.Errorf("open backup %s: %w", to, err)
	}
	defer check.Close()
	var result string
	if err := check.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&result); err != nil {
		return fmt.Errorf("check backup %s: %w", to, err)
	}
	if result != "ok" {
		return fmt.Errorf("backup %s failed its integrity check: %s", to, result)
	}
	return os.Chmod(to, 0o600)
}
