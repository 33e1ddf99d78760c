//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSigningKeyFileMode: a key file that group or others may read or change is refused
// as ssh refuses such a private key (exit 2, naming the file, its mode and chmod 600),
// before the database is opened; one only its owner may read is used as it is.
func TestSigningKeyFileMode(t *testing.T) {
	key := []byte(strings.Repeat("k3", 32))
	for _, tc := range []struct {
		mode    os.FileMode
		refused bool
	}{
		{0o644, true},
		{0o640, true},
		{0o604, true},
		{0o620, true},
		{0o666, true},
		{0o600, false},
		{0o400, false},
	} {
		t.Run(fmt.Sprintf("%04o", tc.mode), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "signing.key")
			if err := os.WriteFile(path, key, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil { // whatever the umask
				t.Fatal(err)
			}
			if !tc.refused {
				got, err := loadOrCreateKey(path)
				if err != nil || !bytes.Equal(got, key) {
					t.Fatalf("a key file of mode %04o: %q %v, want the key", tc.mode, got, err)
				}
				return
			}
			db := filepath.Join(dir, "answerdesk.db")
			// A serve that took the key would run until the context ends.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var errOut bytes.Buffer
			err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--signing-key-file", path}, strings.NewReader(""), io.Discard, &errOut)
			code := exitCode(err, &errOut)
			for _, want := range []string{path, fmt.Sprintf("mode %04o", tc.mode), "chmod 600 " + path} {
				if code != 2 || !strings.Contains(errOut.String(), want) {
					t.Fatalf("serve with a key file of mode %04o: exit %d, want 2 and a message with %q:\n%s", tc.mode, code, want, errOut.String())
				}
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Fatalf("serve went on to open the database: %v", err)
			}
		})
	}
}

// TestSigningKeyFileCreated: a missing key file is created with 32 random bytes, mode 0600
// and its directory 0700 whatever the umask, and read back the same on the next start; a
// symlink at its name is not written through (the key would land where the link's maker
// chose, readable to them).
func TestSigningKeyFileCreated(t *testing.T) {
	old := syscall.Umask(0) // the widest umask: nothing may come out readable to others
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "signing.key")
	key, err := loadOrCreateKey(path)
	if err != nil || len(key) != 32 {
		t.Fatalf("create: %d bytes, %v", len(key), err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want mode %04o", p, info, err, want)
		}
	}
	again, err := loadOrCreateKey(path)
	if err != nil || !bytes.Equal(again, key) {
		t.Fatalf("the next start read another key: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "data", ".signing.key-*")); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}

	loot := filepath.Join(dir, "public", "loot")
	if err := os.MkdirAll(filepath.Dir(loot), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "linked", "signing.key")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loot, link); err != nil {
		t.Fatal(err)
	}
	if _, err := loadOrCreateKey(link); err == nil {
		t.Fatal("a key was made through a dangling symlink")
	}
	if _, err := os.Lstat(loot); !os.IsNotExist(err) {
		t.Fatalf("the key was written where the symlink points: %v", err)
	}
}
