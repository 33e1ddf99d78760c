package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCLIChangesStopServeAtOnce: serve keeps verified API tokens in memory on SQLite while
// the database file is unchanged (store/tokencache.go); the answerdesk CLI is another
// process on the same file, and what it does must stop the very next request all the same,
// after the token has been used enough to be kept.
func TestCLIChangesStopServeAtOnce(t *testing.T) {
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
			dir := t.TempDir()
			db := filepath.Join(dir, "a.db")
			const email = "cli@acme.example"
			runBinary(t, "", "migrate", "--db", db)
			runBinary(t, "", "account", "create", "--db", db, "--number", "1001", "--name", "Acme")
			runBinary(t, "", "user", "create", "--db", db, "--email", email, "--account", "1001")
			token := strings.TrimSpace(runBinary(t, "", "token", "create", "--db", db, "--user", email))
			m := regexp.MustCompile(`(?m)^(\d+)\s+` + regexp.QuoteMeta(email)).FindStringSubmatch(runBinary(t, "", "token", "list", "--db", db, "--user", email))
			if m == nil {
				t.Fatal("token list shows no token")
			}

			srv := startServe(t, dir, nil, "--db", db)
			defer srv.stop(t)
			get := func() int {
				t.Helper()
				req, _ := http.NewRequest("GET", "http://"+srv.addr+"/api/v2/messages", nil)
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
			runBinary(t, "", tc.change(db, email, m[1])...)
			if got := get(); got != http.StatusUnauthorized {
				t.Fatalf("the request right after the CLI's change: %d, want 401", got)
			}
		})
	}
}
