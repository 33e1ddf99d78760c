//go:build unix

package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestBackupExposesNothing: a backup holds the whole database, so no other user may read
// it at any moment (while VACUUM INTO writes it, too), and db backup never writes through
// whatever is at the target's name: not an existing file, not a symlink (dangling or not),
// not one that appears there while the copy is written.
func TestBackupExposesNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// setup puts something at the target (to) before the backup, in dir.
		setup func(t *testing.T, dir, to string)
		// during runs while the copy is written, before it is put in place.
		during func(t *testing.T, dir, to string)
		// refused: the backup must fail, saying the target exists.
		refused bool
		// check looks at dir and the target afterwards.
		check func(t *testing.T, dir, to string)
	}{
		{name: "a new file", check: func(t *testing.T, _, to string) {
			info, err := os.Lstat(to)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
				t.Fatalf("the backup: %v, want a file of mode 0600", modeOf(info, err))
			}
			restored, err := Open(ctx, to)
			if err != nil {
				t.Fatalf("open the backup: %v", err)
			}
			defer restored.Close()
			var name, check string
			if err := restored.read.QueryRow(`SELECT name FROM accounts WHERE number = '1001'`).Scan(&name); err != nil || name != "Account 1001" {
				t.Fatalf("the backup's account: %q %v", name, err)
			}
			if err := restored.read.QueryRow(`PRAGMA quick_check`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("quick_check of the backup: %q %v", check, err)
			}
		}},
		{name: "an existing file", refused: true,
			setup: func(t *testing.T, _, to string) { writeFile(t, to, "last week's backup") },
			check: func(t *testing.T, _, to string) { wantContent(t, to, "last week's backup") }},
		{name: "a dangling symlink", refused: true,
			setup: func(t *testing.T, dir, to string) { symlink(t, filepath.Join(dir, "elsewhere", "loot.db"), to) },
			check: func(t *testing.T, dir, to string) { wantDanglingLink(t, dir, to) }},
		{name: "a symlink to an existing file", refused: true,
			setup: func(t *testing.T, dir, to string) {
				writeFile(t, filepath.Join(dir, "victim"), "not a backup")
				symlink(t, filepath.Join(dir, "victim"), to)
			},
			check: func(t *testing.T, dir, _ string) { wantContent(t, filepath.Join(dir, "victim"), "not a backup") }},
		{name: "a dangling symlink made while the copy is written", refused: true,
			during: func(t *testing.T, dir, to string) { symlink(t, filepath.Join(dir, "elsewhere", "loot.db"), to) },
			check:  func(t *testing.T, dir, to string) { wantDanglingLink(t, dir, to) }},
		{name: "a file made while the copy is written", refused: true,
			during: func(t *testing.T, _, to string) { writeFile(t, to, "someone else's") },
			check:  func(t *testing.T, _, to string) { wantContent(t, to, "someone else's") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTestDB(t, testdb.SQLite, "src.db")
			createTestAccounts(t, db, "1001")
			// A backup directory as operators make them, that everyone may enter (the
			// test's own temporary directory too, or no other user could reach anything).
			top := t.TempDir()
			dir := filepath.Join(top, "backups")
			if err := os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{filepath.Dir(top), top, dir, filepath.Join(dir, "elsewhere")} {
				if err := os.Chmod(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			to := filepath.Join(dir, "answerdesk.db")
			if tc.setup != nil {
				tc.setup(t, dir, to)
			}
			written := false
			backupWritten = func(path string) {
				written = true
				wantPrivate(t, dir, to, path)
				if tc.during != nil {
					tc.during(t, dir, to)
				}
			}
			t.Cleanup(func() { backupWritten = nil })

			err := db.Backup(ctx, to)
			switch {
			case tc.refused && (err == nil || !strings.Contains(err.Error(), "exists")):
				t.Fatalf("backup over %s: %v, want a refusal saying it exists", tc.name, err)
			case !tc.refused && err != nil:
				t.Fatalf("backup: %v", err)
			case !tc.refused && !written:
				t.Fatal("the copy was never seen before it was put in place")
			}
			tc.check(t, dir, to)
			if left, _ := filepath.Glob(filepath.Join(dir, ".answerdesk-backup-*")); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}

// wantPrivate checks the copy while it is not yet in place: nothing is at the target's
// name, the copy is 0600 in a directory of its own, 0700, beside the target, and another
// user cannot read it.
func wantPrivate(t *testing.T, dir, to, path string) {
	t.Helper()
	if _, err := os.Lstat(to); !os.IsNotExist(err) {
		t.Errorf("something is at %s before the copy is complete: %v", to, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 || info.Size() == 0 {
		t.Errorf("the copy being written, %s: %v, want mode 0600 and data", path, modeOf(info, err))
	}
	parent := filepath.Dir(path)
	if info, err := os.Stat(parent); err != nil || info.Mode().Perm() != 0o700 || filepath.Dir(parent) != dir {
		t.Errorf("the copy's directory %s: %v, want mode 0700 in %s", parent, modeOf(info, err), dir)
	}
	if os.Geteuid() != 0 {
		return // no other user to be
	}
	// The attack itself: another local user (nobody) opens the copy while it is written.
	// That user can read a file of the backup directory that is meant for everyone, so a
	// refusal is the copy's protection, not a harness that cannot run cat.
	public := filepath.Join(dir, "README")
	writeFile(t, public, "backups of answerdesk")
	if _, err := readAsNobody(public); err != nil {
		t.Fatalf("another user cannot read even %s: %v", public, err)
	}
	if n, err := readAsNobody(path); err == nil {
		t.Errorf("another user read the copy while it was written (%d bytes)", n)
	}
}

// readAsNobody reads path as the user nobody (uid 65534) and returns how many bytes it got.
func readAsNobody(path string) (int, error) {
	cat := exec.Command("cat", path)
	cat.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cat.Output()
	return len(out), err
}

// modeOf is what a failure says of a file: its mode, or why there is none.
func modeOf(info os.FileInfo, err error) any {
	if err != nil {
		return err
	}
	return info.Mode()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Fatalf("%s: %q %v, want %q unchanged", path, b, err, want)
	}
}

// wantDanglingLink checks that the symlink at to is still there and that its destination
// was not created.
func wantDanglingLink(t *testing.T, dir, to string) {
	t.Helper()
	if info, err := os.Lstat(to); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s: %v, want the symlink left as it was", to, modeOf(info, err))
	}
	if _, err := os.Lstat(filepath.Join(dir, "elsewhere", "loot.db")); !os.IsNotExist(err) {
		t.Fatalf("the symlink's destination was written: %v", err)
	}
}
