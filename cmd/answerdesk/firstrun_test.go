package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFirstRealDeployment is "Run it for real" (/docs/deployment) through the binary: serve on an
// empty database prints the next steps; the command line provisions an account with an SMS
// number and a sending domain, a user and a token; a message, an SMS To Do and an email To
// Do work and are delivered (to the outbox); then the admin API does the same for a second
// account, a non-admin is refused, disabling a user stops their token, and a backup taken
// while serving holds the data.
func TestFirstRealDeployment(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "prod", "answerdesk.db")

	// serve on an empty database, without --demo.
	srv := startServe(t, dir, nil, "--db", db)
	base := "http://" + srv.addr

	api := func(t *testing.T, method, path, token, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		return resp.StatusCode, m
	}
	ok := func(t *testing.T, method, path, token, body string) map[string]any {
		t.Helper()
		status, m := api(t, method, path, token, body)
		if status != 200 {
			t.Fatalf("%s %s: %d %v", method, path, status, m)
		}
		return m["data"].(map[string]any)
	}
	// useAccount creates a message, an SMS To Do and an email To Do, and waits until both To
	// Dos are sent.
	useAccount := func(t *testing.T, token, account, sms, domain string) {
		t.Helper()
		ok(t, "POST", "/api/v2/messages", token, `{"message": {"content": "Dana called about a leak"}}`)
		var ids []string
		for _, body := range []string{
			fmt.Sprintf(`{"account_number": %q, "delivery_type": "sms", "from": %q, "contact": "+15555550123", "message_text": "On our way", "schedule": {"rule": "immediately"}}`, account, sms),
			fmt.Sprintf(`{"account_number": %q, "delivery_type": "email", "contact": "pat@example.com", "from_email": "office@%s", "subject": "Confirmed", "message_text": "See you", "schedule": {"rule": "immediately"}}`, account, domain),
		} {
			ids = append(ids, fmt.Sprint(ok(t, "POST", "/api/v2/to-dos", token, body)["id"]))
		}
		deadline := time.Now().Add(30 * time.Second)
		for _, id := range ids {
			for {
				last, _ := ok(t, "GET", "/api/v2/to-dos/"+id, token, "")["last_delivery"].(map[string]any)
				if last != nil && last["status"] == "sent" && last["channel"] == "outbox" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("To Do %s not sent: %v\n%s", id, last, srv.log())
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}

	var userToken, adminToken string
	t.Run("ready_on_an_empty_database", func(t *testing.T) {
		if s, _ := api(t, "GET", "/readyz", "", ""); s != 200 {
			t.Fatalf("readyz %d", s)
		}
	})
	t.Run("cli_provisions_account_user_token", func(t *testing.T) {
		out := runBinary(t, "", "account", "create", "--db", db, "--number", "1001", "--name", "Acme Plumbing",
			"--sms-number", "+15550101001", "--sending-domain", "acme.example")
		if !strings.Contains(out, "+15550101001") || !strings.Contains(out, "acme.example") {
			t.Fatalf("account create: %s", out)
		}
		runBinary(t, "a long passphrase\n", "user", "create", "--db", db, "--email", "you@example.com", "--password-stdin", "--account", "1001")
		runBinary(t, "another passphrase\n", "user", "create", "--db", db, "--email", "ops@example.com", "--password-stdin", "--admin")
		userToken = strings.TrimSpace(runBinary(t, "", "token", "create", "--db", db, "--user", "you@example.com"))
		adminToken = strings.TrimSpace(runBinary(t, "", "token", "create", "--db", db, "--user", "ops@example.com", "--name", "ops"))
	})
	t.Run("message_sms_and_email_to_dos_by_the_cli_provisioned_user", func(t *testing.T) {
		useAccount(t, userToken, "1001", "+15550101001", "acme.example")
	})
	t.Run("admin_api_provisions_and_the_new_user_works", func(t *testing.T) {
		ok(t, "POST", "/api/v2/accounts", adminToken, `{"number": "1002", "name": "Birch Dental", "time_zone": "America/Chicago", "sms_numbers": ["+15550101002"], "sending_domains": ["birch.example"]}`)
		u := ok(t, "POST", "/api/v2/users", adminToken, `{"email": "front-desk@birch.example", "accounts": ["1002"]}`)
		birch := strings.TrimSpace(runBinary(t, "", "token", "create", "--db", db, "--user", "front-desk@birch.example"))
		useAccount(t, birch, "1002", "+15550101002", "birch.example")
		if s, m := api(t, "POST", "/api/v2/accounts", userToken, `{"number": "1003", "name": "Mine"}`); s != 403 || m["code"] != "forbidden" {
			t.Fatalf("non-admin: %d %v", s, m)
		}
		ok(t, "PATCH", fmt.Sprintf("/api/v2/users/%v", u["id"]), adminToken, `{"disabled": true}`)
		if s, _ := api(t, "GET", "/api/v2/messages", birch, ""); s != 401 {
			t.Fatalf("disabled user's token: %d", s)
		}
	})
	t.Run("backup_while_serving", func(t *testing.T) {
		runBinary(t, "", "db", "backup", "--db", db, "--to", filepath.Join(dir, "backup.db"))
		out := runBinary(t, "", "account", "list", "--db", filepath.Join(dir, "backup.db"))
		if !strings.Contains(out, "Acme Plumbing") || !strings.Contains(out, "Birch Dental") {
			t.Fatalf("backup: %s", out)
		}
	})

	srv.stop(t)
	guide := srv.output()
	for _, want := range []string{"empty database", "answerdesk account create --db " + db, "answerdesk user create --db " + db, "answerdesk token create --db " + db} {
		if !strings.Contains(guide, want) {
			t.Errorf("the first-start guide does not say %q:\n%s", want, guide)
		}
	}
}
