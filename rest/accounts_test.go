package rest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

type accountList = listBody[answerdesk.AccountDetail]

func accountNumbers(l accountList) string {
	var n []string
	for _, a := range l.Data {
		n = append(n, a.Number)
	}
	return strings.Join(n, ",")
}

func TestListAccounts(t *testing.T) {
	app := testapp.New(t)
	ctx := context.Background()
	// A third account with a number that cannot send SMS, seen by the admin only.
	cedar, err := app.DB.CreateAccount(ctx, "1003", "Cedar Vets", "America/Denver")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.DB.AddPhoneNumber(ctx, cedar.ID, "+15550101003", false, ""); err != nil {
		t.Fatal(err)
	}
	multi := app.NewUser(t, "ops@example.com", false, "1002", "1001")

	t.Run("member_sees_own_account_with_sms_numbers_and_domains", func(t *testing.T) {
		r := app.Do(t, "GET", "/api/v2/accounts", app.Alice.Token, nil)
		var l accountList
		r.JSON(t, &l)
		if r.Status != 200 || len(l.Data) != 1 || l.Meta.Total != 1 || l.Meta.Page != 1 || l.Meta.PageSize != answerdesk.DefaultAccountPageSize {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		a := l.Data[0]
		if a.ID != app.Acme.ID || a.Number != "1001" || a.Name != "Acme Plumbing" || a.TimeZone != "America/New_York" ||
			!slices.Equal(a.SMSNumbers, []string{"+15550101001"}) || !slices.Equal(a.SendingDomains, []string{"acme.example"}) {
			t.Fatalf("account %+v", a)
		}
	})
	t.Run("cross_account_visibility", func(t *testing.T) {
		var l accountList
		app.Do(t, "GET", "/api/v2/accounts", app.Bob.Token, nil).JSON(t, &l)
		if accountNumbers(l) != "1002" {
			t.Fatalf("bob sees %s", accountNumbers(l))
		}
		app.Do(t, "GET", "/api/v2/accounts", multi.Token, nil).JSON(t, &l)
		if accountNumbers(l) != "1001,1002" {
			t.Fatalf("a member of two accounts sees %s", accountNumbers(l))
		}
	})
	t.Run("admin_sees_every_account_and_empty_lists_are_arrays", func(t *testing.T) {
		r := app.Do(t, "GET", "/api/v2/accounts", app.Admin.Token, nil)
		var l accountList
		r.JSON(t, &l)
		if accountNumbers(l) != "1001,1002,1003" {
			t.Fatalf("admin sees %s", accountNumbers(l))
		}
		if !strings.Contains(string(r.Body), `"number":"1003","name":"Cedar Vets","time_zone":"America/Denver","sms_numbers":[],"sending_domains":[]`) {
			t.Fatalf("an account without SMS numbers or domains: %s", r.Body)
		}
	})
	t.Run("pages_with_link_header", func(t *testing.T) {
		r := app.Do(t, "GET", "/api/v2/accounts?page=2&page_size=1", app.Admin.Token, nil)
		var l accountList
		r.JSON(t, &l)
		if accountNumbers(l) != "1002" || l.Meta.Total != 3 || *l.Meta.TotalPages != 3 {
			t.Fatalf("page 2: %s", r.Body)
		}
		link := r.Header.Get("Link")
		if !strings.Contains(link, `page=3&page_size=1>; rel="next"`) || !strings.Contains(link, `page=1&page_size=1>; rel="prev"`) {
			t.Fatalf("Link %q", link)
		}
		r = app.Do(t, "GET", "/api/v2/accounts?page=9", app.Admin.Token, nil)
		r.JSON(t, &l)
		if r.Status != 200 || len(l.Data) != 0 || !strings.Contains(string(r.Body), `"data":[]`) {
			t.Fatalf("past the end: %d %s", r.Status, r.Body)
		}
	})
	for _, c := range []struct{ name, query, field string }{
		{"page_size_over_max", fmt.Sprint("page_size=", answerdesk.MaxAccountPageSize+1), "page_size"},
		{"page_size_zero", "page_size=0", "page_size"},
		{"page_zero", "page=0", "page"},
		{"page_not_a_number", "page=one", "page"},
	} {
		t.Run("invalid_"+c.name, func(t *testing.T) {
			wantError(t, app.Do(t, "GET", "/api/v2/accounts?"+c.query, app.Alice.Token, nil), 422, "invalid_parameter", c.field)
		})
	}
	t.Run("needs_a_token", func(t *testing.T) {
		wantError(t, app.Do(t, "GET", "/api/v2/accounts", "", nil), 401, "unauthorized")
	})
}

func TestGetMe(t *testing.T) {
	app := testapp.New(t)
	multi := app.NewUser(t, "ops@example.com", false, "1002", "1001")
	type me struct {
		Data answerdesk.Me `json:"data"`
	}
	cases := []struct {
		name     string
		user     testapp.User
		admin    bool
		accounts string
	}{
		{"member_of_one_account", app.Alice, false, "1001"},
		{"member_of_two_accounts_by_number", multi, false, "1001,1002"},
		{"admin_without_memberships", app.Admin, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := app.Do(t, "GET", "/api/v2/me", c.user.Token, nil)
			var got me
			r.JSON(t, &got)
			var nums []string
			for _, a := range got.Data.Accounts {
				nums = append(nums, a.Number)
			}
			if r.Status != 200 || got.Data.ID != c.user.ID || got.Data.Email != c.user.Email || got.Data.Admin != c.admin ||
				strings.Join(nums, ",") != c.accounts || !strings.Contains(string(r.Body), `"accounts":[`) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
	t.Run("account_objects", func(t *testing.T) {
		r := app.Do(t, "GET", "/api/v2/me", app.Alice.Token, nil)
		want := fmt.Sprintf(`"accounts":[{"id":%d,"number":"1001","name":"Acme Plumbing","time_zone":"America/New_York"}]`, app.Acme.ID)
		if !strings.Contains(string(r.Body), want) {
			t.Fatalf("body %s, want %s", r.Body, want)
		}
	})
	t.Run("needs_a_token", func(t *testing.T) {
		wantError(t, app.Do(t, "GET", "/api/v2/me", "", nil), 401, "unauthorized")
	})
}
