package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func runCmd(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestAdminCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sub", "answerdesk.db")
	if out, err := runCmd(t, "", "migrate", "--db", db); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	if out, err := runCmd(t, "", "seed", "--db", db); err != nil || !strings.Contains(out, "ak_") {
		t.Fatalf("seed: %v %s", err, out)
	}
	if out, err := runCmd(t, "s3cret-password\n", "user", "create", "--db", db, "--email", "New@Example.com", "--password-stdin", "--account", "1001", "--account", "1002"); err != nil || !strings.Contains(out, "new@example.com") {
		t.Fatalf("user create: %v %s", err, out)
	}
	if _, err := runCmd(t, "short\n", "user", "create", "--db", db, "--email", "x@example.com", "--password-stdin"); err == nil {
		t.Fatal("short password accepted")
	}
	if out, err := runCmd(t, "", "user", "create", "--db", db, "--email", "y@example.com"); err != nil || !strings.Contains(out, "no password") {
		t.Fatalf("user create without a password: %v %s", err, out)
	}
	out, err := runCmd(t, "", "token", "create", "--db", db, "--user", "new@example.com", "--name", "zapier")
	token := strings.TrimSpace(out)
	if err != nil || !regexp.MustCompile(`^ak_[A-Za-z0-9_-]{43}$`).MatchString(token) {
		t.Fatalf("token create printed %q (%v); want the token alone", out, err)
	}
	out, err = runCmd(t, "", "token", "list", "--db", db, "--user", "new@example.com")
	if err != nil || !strings.Contains(out, "zapier") || !strings.Contains(out, token[:9]) || strings.Contains(out, token) {
		t.Fatalf("token list: %v\n%s", err, out)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if out, err := runCmd(t, "", "token", "revoke", "--db", db, id); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	if _, err := runCmd(t, "", "token", "revoke", "--db", db, "99999"); err == nil {
		t.Fatal("revoking an unknown token succeeded")
	}
	t.Setenv("ANSWERDESK_DB", db)
	if out, err := runCmd(t, "", "token", "list"); err != nil || !strings.Contains(out, "new@example.com") {
		t.Fatalf("ANSWERDESK_DB not used: %v %s", err, out)
	}
	if _, err := runCmd(t, "", "nonsense"); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// TestServeBinary builds the real binary, starts "serve --demo" on a free port, uses the
// printed demo token, and stops it with SIGTERM, which must exit 0.
func TestServeBinary(t *testing.T) {
	dir := t.TempDir()
	srv := startServe(t, dir, []string{"ANSWERDESK_DB=" + filepath.Join(dir, "data", "demo.db"), "ANSWERDESK_METRICS_TOKEN=m3tr1cs-t0ken"}, "--demo")
	addr := srv.addr
	// The demo token is printed on stdout.
	var token string
	for deadline := time.Now().Add(60 * time.Second); token == ""; time.Sleep(20 * time.Millisecond) {
		if m := regexp.MustCompile(`(?m)^\s+(ak_\S{43})$`).FindStringSubmatch(srv.output()); m != nil {
			token = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve printed no demo token:\n%s", srv.output())
		}
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/v2/messages?page_size=2", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var list struct {
		Data []map[string]any
		Meta struct{ Total int }
	}
	if err := json.Unmarshal(body, &list); err != nil || resp.StatusCode != 200 || len(list.Data) != 2 || list.Meta.Total < 250 {
		t.Fatalf("demo list: %d %s", resp.StatusCode, body)
	}
	// The demo's on-call contact pushes to the server's own demo receiver: a new message is
	// delivered without any network, and the receiver shows what it took.
	req, _ = http.NewRequest("POST", "http://"+addr+"/api/v2/messages", strings.NewReader(`{"message": {"content": "Dana called about a leak"}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("create a message: %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/demo/receiver")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && strings.Contains(string(body), `"text":"Dana called about a leak"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo receiver did not get the message: %d %s\n%s", resp.StatusCode, body, srv.output())
		}
	}
	// ANSWERDESK_METRICS_TOKEN guards /metrics.
	for _, tc := range []struct {
		auth   string
		status int
	}{{"", 401}, {"Bearer wrong", 401}, {"Bearer m3tr1cs-t0ken", 200}} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("/metrics with %q: %d, want %d", tc.auth, resp.StatusCode, tc.status)
		}
	}
	srv.stop(t)
	// The data directory is the service's alone; the database and the key are 0600.
	if info, err := os.Stat(filepath.Join(dir, "data")); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("data directory: %v %v", info, err)
	}
	for _, f := range []string{"signing.key", "demo.db", "demo.db-wal", "demo.db-shm"} {
		info, err := os.Stat(filepath.Join(dir, "data", f))
		if errors.Is(err, os.ErrNotExist) && f != "signing.key" && f != "demo.db" {
			continue // checkpointed away at close
		}
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", f, info, err)
		}
	}
}
