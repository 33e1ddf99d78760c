package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// backupWritten, when set (by tests), is called with the path of the checked copy just
// before it is linked to the target, while it is still in its private directory.
var backupWritten func(path string)

// Backup copies a SQLite database (on PostgreSQL it refuses: that is pg_dump's job).
// It writes a consistent copy of the database to a new file with VACUUM INTO: it runs
// while the service serves (it reads one snapshot; writers are not blocked in WAL mode) and
// the copy is compact and needs no -wal file. The copy is then checked with PRAGMA
// quick_check, so a backup that reports success restores.
//
// The copy holds everything the database holds, so no other user may read it at any
// moment, and nothing at the target's name is ever written through (docs: security,
// "Backups"). It is written and checked as a file of mode 0600 inside a new directory of
// mode 0700 beside the target, and only then hard-linked to the target's name: the link
// fails if anything is at that name (a file, a directory, a symlink even when it dangles),
// atomically, so an existing file is never overwritten, a symlink is never followed, and a
// file that appears there while the copy is written is not replaced. The target appears
// complete or not at all.
func (db *DB) Backup(ctx context.Context, to string) error {
	if db.d.postgres {
		return errors.New("db backup copies a SQLite file; back up a PostgreSQL database with pg_dump (pg_dump --format=custom --file=answerdesk.dump URL) or the server's own backups")
	}
	// A first look, to refuse before copying anything; the link below is what holds.
	if _, err := os.Lstat(to); err == nil {
		return backupExists(to)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup target %s: %w", to, err)
	}
	dir := filepath.Dir(to)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create backup directory: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".answerdesk-backup-")
	if err != nil {
		return fmt.Errorf("create a private directory for the backup in %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp) // after the link, only the copy's other name goes
	// MkdirTemp's mode is 0700 less the umask: set it, so that a umask cannot matter.
	if err := os.Chmod(tmp, 0o700); err != nil {
		return fmt.Errorf("backup directory mode: %w", err)
	}
	copyPath := filepath.Join(tmp, "backup.db")
	// VACUUM INTO writes into an empty file that exists: made here with mode 0600, SQLite
	// never creates it with its own default mode (0644 less the umask).
	f, err := os.OpenFile(copyPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create the backup file: %w", err)
	}
	if err := errors.Join(f.Chmod(0o600), f.Close()); err != nil {
		return fmt.Errorf("create the backup file: %w", err)
	}
	// A connection of its own: the reader pool is query_only, which refuses VACUUM INTO,
	// and the writer connection would hold up the service's writes for the whole copy.
	src, err := sql.Open("sqlite", "file:"+db.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("open %s for backup: %w", db.path, err)
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, `VACUUM INTO ?`, copyPath); err != nil {
		return fmt.Errorf("back up %s to %s: %w", db.path, to, err)
	}
	if err := checkBackup(ctx, copyPath); err != nil {
		return fmt.Errorf("backup %s: %w", to, err)
	}
	if err := syncFile(copyPath); err != nil {
		return fmt.Errorf("backup %s: %w", to, err)
	}
	if backupWritten != nil {
		backupWritten(copyPath)
	}
	if err := os.Link(copyPath, to); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return backupExists(to)
		}
		return fmt.Errorf("put the backup in place as %s: %w (the backup directory's file system must support hard links)", to, err)
	}
	return nil
}

// backupExists is Backup's refusal of a target name that is taken.
func backupExists(to string) error {
	return fmt.Errorf("backup target %s exists: choose a new file name (a backup never replaces a file, nor writes through a link)", to)
}

// checkBackup opens the copy read-only and runs PRAGMA quick_check on it.
func checkBackup(ctx context.Context, path string) error {
	check, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("open the copy: %w", err)
	}
	defer check.Close()
	var result string
	if err := check.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&result); err != nil {
		return fmt.Errorf("check the copy: %w", err)
	}
	if result != "ok" {
		return fmt.Errorf("the copy failed its integrity check: %s", result)
	}
	return nil
}

// syncFile flushes the file to the disk: VACUUM INTO does not, and a backup is kept for
// the day the machine fails.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync the copy: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync the copy: %w", err)
	}
	return nil
}
