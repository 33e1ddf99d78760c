package rest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// TestAccountEntriesBelongToOneAccount: a sending domain, like an SMS number, belongs to one
// account at a time (another account's members could otherwise send as it), and removing
// either releases it.
func TestAccountEntriesBelongToOneAccount(t *testing.T) {
	app := testapp.New(t)
	admin := app.Admin.Token
	if r := app.Do(t, "POST", "/api/v2/accounts/1001/sending-domains", admin, `{"domain":"Birch.Example"}`); r.Status != 422 ||
		!strings.Contains(string(r.Body), `"field":"domain"`) || !strings.Contains(string(r.Body), "another account") {
		t.Fatalf("another account's domain: %d %s, want 422 on domain", r.Status, r.Body)
	}
	if r := app.Do(t, "POST", "/api/v2/accounts", admin, `{"number":"1003","name":"Cedar","sending_domains":["acme.example"]}`); r.Status != 422 {
		t.Fatalf("an account created with another account's domain: %d %s", r.Status, r.Body)
	}
	if r := app.Do(t, "POST", "/api/v2/accounts/1001/sms-numbers", admin, `{"number":"+15550101002"}`); r.Status != 422 {
		t.Fatalf("another account's SMS number: %d %s", r.Status, r.Body)
	}
	birchToDo := app.CreateToDo(t, app.Bob, `{"account_number":"1002","delivery_type":"sms","from":"+15550101002","contact":"+15555550123",
		"message_text":"Reminder","schedule":{"frequency":"daily","times":["09:00"]}}`)
	if birchToDo.PhoneID == nil {
		t.Fatal("Birch's SMS To Do runs against no phone number")
	}
	for _, path := range []string{"/api/v2/accounts/1002/sms-numbers/%2B15550101002", "/api/v2/accounts/1002/sending-domains/birch.example"} {
		if r := app.Do(t, "DELETE", path, admin, nil); r.Status != 200 {
			t.Fatalf("DELETE %s: %d %s", path, r.Status, r.Body)
		}
	}
	if r := app.Do(t, "POST", "/api/v2/accounts/1001/sms-numbers", admin, `{"number":"+15550101002"}`); r.Status != 200 {
		t.Fatalf("a released SMS number: %d %s", r.Status, r.Body)
	}
	if r := app.Do(t, "POST", "/api/v2/accounts/1001/sending-domains", admin, `{"domain":"birch.example"}`); r.Status != 200 {
		t.Fatalf("a released domain: %d %s", r.Status, r.Body)
	}
	// The number is Acme's alone now: Birch's To Do no longer runs against it (it would
	// send from it, or show it as caller ID).
	var todo struct{ Data answerdesk.ToDo }
	app.Do(t, "GET", fmt.Sprintf("/api/v2/to-dos/%d", birchToDo.ID), app.Bob.Token, nil).JSON(t, &todo)
	if todo.Data.PhoneID != nil {
		t.Errorf("Birch's To Do still runs against phone %d, now Acme's", *todo.Data.PhoneID)
	}
	var acct struct{ Data answerdesk.AccountDetail }
	app.Do(t, "GET", "/api/v2/accounts/1001", admin, nil).JSON(t, &acct)
	if !strings.Contains(strings.Join(acct.Data.SMSNumbers, ","), "+15550101002") || !strings.Contains(strings.Join(acct.Data.SendingDomains, ","), "birch.example") {
		t.Fatalf("account 1001 after taking the released entries: %+v", acct.Data)
	}
}

// TestAccountEntryCaps: an account holds at most 100 SMS numbers, 100 sending domains and
// 10,000 blacklisted addresses; the blacklist is a paginated list of its own.
func TestAccountEntryCaps(t *testing.T) {
	app := testapp.New(t)
	admin := app.Admin.Token
	caps := []struct {
		path, field string
		limit       int
		value       func(i int) string
	}{
		{"/api/v2/accounts/1001/sms-numbers", "number", answerdesk.MaxSMSNumbersPerAccount, func(i int) string { return fmt.Sprintf("+1555020%04d", i) }},
		{"/api/v2/accounts/1001/sending-domains", "domain", answerdesk.MaxSendingDomainsPerAccount, func(i int) string { return fmt.Sprintf("d%d.acme.example", i) }},
	}
	for _, c := range caps {
		for i := 1; ; i++ { // the fixture's own entry is the first
			r := app.Do(t, "POST", c.path, admin, fmt.Sprintf(`{%q:%q}`, c.field, c.value(i)))
			if i < c.limit {
				if r.Status != 200 {
					t.Fatalf("%s #%d: %d %s", c.path, i+1, r.Status, r.Body)
				}
				continue
			}
			if r.Status != 422 || !strings.Contains(string(r.Body), `"field":"`+c.field+`"`) || !strings.Contains(string(r.Body), "the most it may have") {
				t.Fatalf("%s #%d: %d %s, want 422 on %s", c.path, i+1, r.Status, r.Body, c.field)
			}
			break
		}
	}
	// The blacklist's cap is too many requests for a test: its rule is the same checkCount.
	for i := range 3 {
		if r := app.Do(t, "POST", "/api/v2/accounts/1001/email-blacklist", admin, fmt.Sprintf(`{"email":"spam%d@acme.example"}`, i)); r.Status != 200 {
			t.Fatalf("blacklist: %d %s", r.Status, r.Body)
		}
	}
	var page struct {
		Data []answerdesk.BlacklistEntry
		Meta answerdesk.PageMeta
	}
	r := app.Do(t, "GET", "/api/v2/accounts/1001/email-blacklist?page_size=2", admin, nil)
	r.JSON(t, &page)
	if r.Status != 200 || len(page.Data) != 2 || page.Meta.Total != 4 || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("blacklist page: %d %+v %s", r.Status, page, r.Header.Get("Link"))
	}
	for _, tc := range []struct {
		token, query string
		status       int
	}{{app.Alice.Token, "", 403}, {admin, "?page_size=0", 422}, {admin, "?page=0", 422}} {
		if r := app.Do(t, "GET", "/api/v2/accounts/1001/email-blacklist"+tc.query, tc.token, nil); r.Status != tc.status {
			t.Errorf("GET email-blacklist%s: %d, want %d", tc.query, r.Status, tc.status)
		}
	}
	if r := app.Do(t, "GET", "/api/v2/accounts/9999/email-blacklist", admin, nil); r.Status != 404 {
		t.Errorf("an unknown account's blacklist: %d, want 404", r.Status)
	}
}

// TestNoLeadingZeroAccountNumbers: 03001 would be a second account that everyone reading it
// takes for 3001.
func TestNoLeadingZeroAccountNumbers(t *testing.T) {
	app := testapp.New(t)
	r := app.Do(t, "POST", "/api/v2/accounts", app.Admin.Token, `{"number":"03001","name":"Zero"}`)
	if r.Status != 422 || !strings.Contains(string(r.Body), `"field":"number"`) {
		t.Fatalf("03001: %d %s, want 422 on number", r.Status, r.Body)
	}
}

// TestErrorsEchoLittle: an answer quotes at most a short piece of what was sent.
func TestErrorsEchoLittle(t *testing.T) {
	app := testapp.New(t)
	long := strings.Repeat("x", 5000)
	for _, path := range []string{"/api/v2/messages/" + long, "/api/v2/to-dos/" + long, "/api/v2/call-recordings/" + long,
		"/api/v2/accounts/" + long, "/api/v2/users/" + long, "/api/v2/" + long, "/api/v2/on-call-contacts/" + url.PathEscape(long)} {
		method := "GET"
		if strings.Contains(path, "on-call-contacts") {
			method = "DELETE"
		}
		r := app.Do(t, method, path, app.Admin.Token, nil)
		if r.Status != 404 || len(r.Body) > 600 {
			t.Errorf("%s %.40s…: %d, %d bytes: %.200s", method, path, r.Status, len(r.Body), r.Body)
		}
	}
}
