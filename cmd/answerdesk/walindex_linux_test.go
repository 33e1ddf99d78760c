//go:build linux

package main

import (
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestCLIBesideServeKeepsTheWALIndex: the CLI's writing commands and a backup, run against
// the database a serve process is serving (the documented way to provision while serving),
// leave the service working and the database intact, once the WAL index has grown past its
// first 32 KiB region. A serve that has dropped SQLite's lock on the -shm file lets the CLI
// take the index for abandoned and rebuild it under the server (every request then failed
// with "disk I/O error").
func TestCLIBesideServeKeepsTheWALIndex(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	const email = "ops@acme.example"
	runBinary(t, "", "migrate", "--db", db)
	runBinary(t, "", "account", "create", "--db", db, "--number", "1001", "--name", "Acme")
	runBinary(t, "", "user", "create", "--db", db, "--email", email, "--account", "1001")
	token := strings.TrimSpace(runBinary(t, "", "token", "create", "--db", db, "--user", email))

	srv := startServe(t, dir, nil, "--db", db)
	defer srv.stop(t)
	call := func(method, path, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+srv.addr+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 5 {
		if got := call("GET", "/api/v2/messages", ""); got != http.StatusOK {
			t.Fatalf("before: GET /api/v2/messages %d\n%s", got, srv.log())
		}
		if got := call("POST", "/api/v2/messages", `{"message":{"content":"Leak under the sink"}}`); got != http.StatusOK {
			t.Fatalf("before: POST /api/v2/messages %d\n%s", got, srv.log())
		}
	}
	if !testdb.HoldsSHMLock(t, srv.cmd.Process.Pid, db) {
		t.Fatalf("after authenticated requests, serve holds no lock on byte %d of the -shm file", testdb.SHMDeadManSwitch)
	}

	// One transaction of more than 4,062 pages (the first region's worth of WAL frames)
	// grows the WAL index past 32 KiB; the serve's own writes are checkpointed long before.
	// Left uncheckpointed, its frames make every read of the serve look into the
	// index's second region.
	grow, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := grow.Exec(`CREATE TABLE ballast AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
		SELECT i, randomblob(4000) AS b FROM n`); err != nil {
		t.Fatal(err)
	}
	grow.Close()
	if fi, err := os.Stat(db + "-shm"); err != nil || fi.Size() <= 32<<10 {
		t.Fatalf("the WAL index did not grow past 32 KiB: %v %v", fi.Size(), err)
	}

	for range 3 {
		if got := call("GET", "/api/v2/messages", ""); got != http.StatusOK {
			t.Fatalf("with a grown WAL index: GET /api/v2/messages %d\n%s", got, srv.log())
		}
	}
	runBinary(t, "", "token", "create", "--db", db, "--user", email)
	runBinary(t, "", "account", "create", "--db", db, "--number", "1002", "--name", "Birch")
	runBinary(t, "", "db", "backup", "--db", db, "--to", filepath.Join(dir, "backup.db"))

	for _, path := range []string{"/api/v2/messages", "/api/v2/accounts"} {
		if got := call("GET", path, ""); got != http.StatusOK {
			t.Errorf("after the CLI: GET %s %d\n%s", path, got, srv.log())
		}
	}
	if got := call("POST", "/api/v2/messages", `{"message":{"content":"Still here"}}`); got != http.StatusOK {
		t.Errorf("after the CLI: POST /api/v2/messages %d\n%s", got, srv.log())
	}
	if resp, err := http.Get("http://" + srv.addr + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("after the CLI: /readyz %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if !testdb.HoldsSHMLock(t, srv.cmd.Process.Pid, db) {
		t.Errorf("after the CLI, serve holds no lock on byte %d of the -shm file", testdb.SHMDeadManSwitch)
	}
	check, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	var result string
	if err := check.QueryRow(`PRAGMA integrity_check`).Scan(&result); err != nil || result != "ok" {
		t.Fatalf("integrity_check: %q %v", result, err)
	}
}
