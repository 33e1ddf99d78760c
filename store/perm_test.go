package store_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/answerdesk/answerdesk/store"
)

// The database and its -wal and -shm files hold message content and password hashes:
// only the service's user may read them, whatever the umask.
func TestDatabaseFileModes(t *testing.T) {
	old := syscall.Umask(0) // the most permissive umask: modes must not depend on it
	defer syscall.Umask(old)
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
	}{
		{"fresh_database_in_a_new_directory", func(t *testing.T, path string) {}},
		{"existing_world_readable_database_is_tightened", func(t *testing.T, path string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "data", "answerdesk.db")
			tt.prepare(t, path)
			db, err := store.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// A write makes sure the -wal and -shm files exist.
			if _, err := db.CreateAccount(context.Background(), "1001", "Acme Plumbing", "America/New_York"); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(filepath.Dir(path))
			if err != nil || info.Mode().Perm() != 0o700 {
				t.Fatalf("data directory: %v %v", info.Mode(), err)
			}
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				info, err := os.Stat(f)
				if err != nil {
					t.Fatalf("%s: %v", filepath.Base(f), err)
				}
				if info.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, want 0600", filepath.Base(f), info.Mode().Perm())
				}
			}
		})
	}
}
