//go:build unix

package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
	_ "modernc.org/sqlite"
)

// heartbeat is the serve processes' --heartbeat-interval in these tests: a replica counts
// as stopped store.StaleBeats of them after its last heartbeat.
const heartbeat = "200ms"

// writeKeys writes two signing key files of mode 0600 in dir.
func writeKeys(t *testing.T, dir string) (keyA, keyB string) {
	t.Helper()
	keyA, keyB = filepath.Join(dir, "a.key"), filepath.Join(dir, "b.key")
	for path, v := range map[string]string{keyA: strings.Repeat("a7", 32), keyB: strings.Repeat("b8", 32)} {
		if err := os.WriteFile(path, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return keyA, keyB
}

// recordedKey is the key fingerprint the database records ("" for none).
func recordedKey(t *testing.T, dsn string) string {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var fp string
	err = db.SQL().QueryRow(`SELECT value FROM service_meta WHERE name = 'signing_key_fingerprint'`).Scan(&fp)
	if err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	return fp
}

// keyFileFingerprint is the fingerprint of the key in the file.
func keyFileFingerprint(t *testing.T, path string) string {
	t.Helper()
	key, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return store.KeyFingerprint(key)
}

// TestResetSigningKeyWhileServing: db reset-signing-key does nothing without --yes (exit
// 2, saying what it would do); with --yes it refuses while a serve runs on the database
// (exit 1, naming the process, the key still recorded), and goes through once that serve
// has stopped; a serve with a new key then starts.
func TestResetSigningKeyWhileServing(t *testing.T) {
	// A serve that must count as running throughout beats slowly: under a loaded machine
	// (the race detector, other packages' tests) a 200 ms beat can be late by more than its
	// three intervals of grace, and the reset would rightly go through.
	const liveHeartbeat = "2s"
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		dir := t.TempDir()
		db := testdb.DSN(t, engine, "reset.db")
		keyA, keyB := writeKeys(t, dir)
		srv := startServe(t, dir, nil, "--db", db, "--signing-key-file", keyA, "--heartbeat-interval", liveHeartbeat)

		out, errOut, code := runExit(t, "", "db", "reset-signing-key", "--db", db)
		if code != 2 || !strings.Contains(errOut, "pass --yes") || !strings.Contains(errOut, "must be set again") {
			t.Fatalf("reset without --yes: exit %d, want 2 saying what it does and to pass --yes\n%s%s", code, out, errOut)
		}
		out, errOut, code = runExit(t, "", "db", "reset-signing-key", "--db", db, "--yes")
		for _, want := range []string{"nothing changed", fmt.Sprintf("pid %d", srv.cmd.Process.Pid), "stop every serve on the database first"} {
			if code != 1 || !strings.Contains(errOut, want) {
				t.Fatalf("reset --yes while serve runs: exit %d, want 1 and %q\n%s%s", code, want, out, errOut)
			}
		}
		if got, want := recordedKey(t, db), keyFileFingerprint(t, keyA); got != want {
			t.Fatalf("after the refusal the database records %q, want %q", got, want)
		}

		srv.stop(t) // a clean stop takes it off the list at once
		out, errOut, code = runExit(t, "", "db", "reset-signing-key", "--db", db, "--yes")
		if code != 0 || !strings.Contains(out, "forgotten") {
			t.Fatalf("reset --yes after serve stopped: exit %d\n%s%s", code, out, errOut)
		}
		if got := recordedKey(t, db); got != "" {
			t.Fatalf("after the reset the database records %q", got)
		}
		startServe(t, dir, nil, "--db", db, "--signing-key-file", keyB, "--heartbeat-interval", liveHeartbeat).stop(t)
		if got, want := recordedKey(t, db), keyFileFingerprint(t, keyB); got != want {
			t.Fatalf("the new serve recorded %q, want its key %q", got, want)
		}
	})
}

// TestServeStopsWhenItsKeyIsReplaced is the way a replica came to run beside others with
// another key: replica A pauses (here SIGSTOP) long enough to count as stopped, the key is
// reset, and replica B starts with another key. When A wakes up, its next heartbeat finds
// B's key recorded: A stops serving (drained, as on SIGTERM) with exit status 1 and an
// ERROR line saying why, instead of sealing secrets with a key B cannot open. B serves on.
func TestServeStopsWhenItsKeyIsReplaced(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		dir := t.TempDir()
		db := testdb.DSN(t, engine, "replaced.db")
		keyA, keyB := writeKeys(t, dir)
		a := startServe(t, dir, nil, "--db", db, "--signing-key-file", keyA, "--heartbeat-interval", heartbeat)

		pauseIdle(t, a, engine, db)
		paused := true
		defer func() {
			if paused {
				_ = a.cmd.Process.Signal(syscall.SIGCONT) // so that the cleanup's kill ends it
			}
		}()
		// A counts as stopped once its heartbeats are StaleBeats intervals late.
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, errOut, code := runExit(t, "", "db", "reset-signing-key", "--db", db, "--yes")
			if code == 0 {
				break
			}
			if time.Now().After(deadline) || !strings.Contains(errOut, "stop every serve on the database first") {
				t.Fatalf("reset --yes with replica A paused: exit %d\n%s%s", code, out, errOut)
			}
			time.Sleep(100 * time.Millisecond)
		}
		b := startServe(t, dir, nil, "--db", db, "--signing-key-file", keyB, "--heartbeat-interval", heartbeat)

		if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		paused = false
		select {
		case <-a.exited:
		case <-time.After(30 * time.Second):
			t.Fatalf("replica A still runs 30 s after it woke up with a replaced key\n%s", a.log())
		}
		if code := a.cmd.ProcessState.ExitCode(); code != 1 {
			t.Fatalf("replica A exited %d, want 1\n%s", code, a.log())
		}
		log := a.log()
		for _, want := range []string{"level=ERROR", "signing key changed", "another key's fingerprint is recorded",
			"shutting down: draining requests and work", "answerdesk: stopped serving"} {
			if !strings.Contains(log, want) {
				t.Errorf("replica A's log does not say %q:\n%s", want, log)
			}
		}
		resp, err := http.Get("http://" + b.addr + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("replica B: /readyz %d", resp.StatusCode)
		}
		b.stop(t)
	})
}

// pauseIdle stops the process with SIGSTOP at a moment it holds no SQLite write lock (a
// process paused inside a write would hold up every other one on the file).
func pauseIdle(t *testing.T, p *serveProc, engine, dsn string) {
	t.Helper()
	for range 50 {
		if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		if engine != testdb.SQLite || canWrite(t, dsn) {
			return
		}
		if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatal("the serve process held the SQLite write lock at every try")
}

// canWrite reports whether a write transaction on the SQLite file starts within 200 ms.
func canWrite(t *testing.T, path string) bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(200)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return false
	}
	_ = tx.Rollback()
	return true
}
