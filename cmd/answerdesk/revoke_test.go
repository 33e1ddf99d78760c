package main

import (
	"bufio"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCLIChangesStopServeAtOnce: serve keeps verified API tokens in memory on SQLite while
// the database file is unchanged (store/tokencache.go); the answerdesk CLI is another
// process on the same file, and what it does must stop the very next request all the same,
// after the token has been used enough to be kept.
func TestCLIChangesStopServeAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, tc := range []struct {
		name   string
		change func(db, email, tokenID string) []string
	}{
		{"token_revoke", func(db, _, id string) []string { return []string{"token", "revoke", "--db", db, id} }},
		{"user_disable", func(db, email, _ string) []string {
			return []string{"user", "update", "--db", db, "--email", email, "--disable"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := answerdeskBinary(t)
			db := filepath.Join(t.TempDir(), "a.db")
			const email = "cli@acme.example"
			run := func(args ...string) string {
				t.Helper()
				out, err := exec.Command(bin, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("answerdesk %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			run("migrate", "--db", db)
			run("account", "create", "--db", db, "--number", "1001", "--name", "Acme")
			run("user", "create", "--db", db, "--email", email, "--account", "1001")
			token := strings.TrimSpace(run("token", "create", "--db", db, "--user", email))
			m := regexp.MustCompile(`(?m)^(\d+)\s+` + regexp.QuoteMeta(email)).FindStringSubmatch(run("token", "list", "--db", db, "--user", email))
			if m == nil {
				t.Fatal("token list shows no token")
			}

			cmd := exec.Command(bin, "serve", "--db", db, "--addr", "127.0.0.1:0")
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer terminate(t, cmd, exited, func() string { return "" })
			addrCh := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					if m := regexp.MustCompile(`addr=(\S+)`).FindStringSubmatch(sc.Text()); m != nil && strings.Contains(sc.Text(), "msg=serving") {
						addrCh <- m[1]
					}
				}
			}()
			var addr string
			select {
			case addr = <-addrCh:
			case <-time.After(60 * time.Second):
				t.Fatal("serve did not log its address")
			}
			get := func() int {
				t.Helper()
				req, _ := http.NewRequest("GET", "http://"+addr+"/api/v2/messages", nil)
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			for range 3 {
				if got := get(); got != http.StatusOK {
					t.Fatalf("before: %d", got)
				}
			}
			run(tc.change(db, email, m[1])...)
			if got := get(); got != http.StatusUnauthorized {
				t.Fatalf("the request right after the CLI's change: %d, want 401", got)
			}
		})
	}
}
