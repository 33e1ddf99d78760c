//go:build linux

package testdb

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// SHMDeadManSwitch is the byte of a SQLite database's -shm file on which every process
// that has the database open holds a shared lock (WALINDEX_LOCK_OFFSET + SQLITE_SHM_NLOCK
// in SQLite's os_unix.c). A process that can lock it exclusively takes the WAL index for
// abandoned and rebuilds it, under any process still using it without the lock.
const SHMDeadManSwitch = 128

// HoldsSHMLock reports whether process pid holds a POSIX lock covering SHMDeadManSwitch on
// the -shm file of the SQLite database at dbPath, as /proc/locks lists it.
func HoldsSHMLock(t testing.TB, pid int, dbPath string) bool {
	t.Helper()
	fi, err := os.Stat(dbPath + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	ino := strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10)
	f, err := os.Open("/proc/locks")
	if err != nil {
		t.Skipf("no /proc/locks: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: POSIX  ADVISORY  READ 4711 08:01:1234567 128 128"; a blocked request has a
		// "->" field more, and is not held.
		fields := strings.Fields(sc.Text())
		if len(fields) != 8 || fields[1] != "POSIX" || fields[4] != strconv.Itoa(pid) {
			continue
		}
		if dev := strings.Split(fields[5], ":"); len(dev) != 3 || dev[2] != ino {
			continue
		}
		first, err := strconv.ParseInt(fields[6], 10, 64)
		if err != nil {
			t.Fatalf("unreadable /proc/locks line %q", sc.Text())
		}
		last := int64(1 << 62)
		if fields[7] != "EOF" {
			if last, err = strconv.ParseInt(fields[7], 10, 64); err != nil {
				t.Fatalf("unreadable /proc/locks line %q", sc.Text())
			}
		}
		if first <= SHMDeadManSwitch && SHMDeadManSwitch <= last {
			return true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return false
}
