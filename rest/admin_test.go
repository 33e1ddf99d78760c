package rest_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/store"
)

type accountOne = oneBody[answerdesk.AccountDetail]

type userOne = oneBody[answerdesk.UserDetail]

// wantAdminError is wantError naming at most one field, which must come first.
func wantAdminError(t *testing.T, r *testapp.Response, status int, code, field string) {
	t.Helper()
	if field == "" {
		wantError(t, r, status, code)
		return
	}
	if e := wantError(t, r, status, code, field); len(e.Errors) == 0 || e.Errors[0].Field != field {
		t.Fatalf("errors %+v, want %q first", e.Errors, field)
	}
}

func TestAdminAPIForbidsNonAdmins(t *testing.T) {
	app := testapp.New(t)
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/api/v2/accounts", `{"number": "2001", "name": "Cedar Law"}`},
		{"PATCH", "/api/v2/accounts/1001", `{"name": "Mine now"}`},
		{"POST", "/api/v2/accounts/1001/sms-numbers", `{"number": "+15550109999"}`},
		{"DELETE", "/api/v2/accounts/1001/sms-numbers/+15550101001", ""},
		{"POST", "/api/v2/accounts/1001/sending-domains", `{"domain": "evil.example"}`},
		{"DELETE", "/api/v2/accounts/1001/sending-domains/acme.example", ""},
		{"POST", "/api/v2/accounts/1001/email-blacklist", `{"email": "x@acme.example"}`},
		{"DELETE", "/api/v2/accounts/1001/email-blacklist/blocked@acme.example", ""},
		{"GET", "/api/v2/users", ""},
		{"POST", "/api/v2/users", `{"email": "new@acme.example", "admin": true}`},
		{"GET", "/api/v2/users/1", ""},
		{"PATCH", "/api/v2/users/1", `{"admin": true}`},
	} {
		t.Run(tc.method+"_"+strings.ReplaceAll(strings.TrimPrefix(tc.path, "/api/v2/"), "/", "_"), func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			wantAdminError(t, app.Do(t, tc.method, tc.path, app.Alice.Token, body), 403, "forbidden", "")
		})
	}
	// Nothing changed: Alice is still no admin and 1001 keeps its number and domain.
	var a accountOne
	app.Do(t, "GET", "/api/v2/accounts/1001", app.Alice.Token, nil).JSON(t, &a)
	if a.Data.Name != "Acme Plumbing" || !slices.Equal(a.Data.SMSNumbers, []string{"+15550101001"}) || !slices.Equal(a.Data.SendingDomains, []string{"acme.example"}) {
		t.Fatalf("account changed: %+v", a.Data)
	}
}

func TestAdminProvisionsAccounts(t *testing.T) {
	app := testapp.New(t)
	admin := app.Admin.Token

	t.Run("create_with_sms_number_and_sending_domain", func(t *testing.T) {
		r := app.Do(t, "POST", "/api/v2/accounts", admin, `{"number": "2001", "name": "Cedar Law", "time_zone": "America/Chicago",
			"sms_numbers": ["(555) 010-2001"], "sending_domains": ["Cedar.Example"]}`)
		var a accountOne
		r.JSON(t, &a)
		if r.Status != 200 || a.Data.Number != "2001" || a.Data.TimeZone != "America/Chicago" ||
			!slices.Equal(a.Data.SMSNumbers, []string{"+15550102001"}) || !slices.Equal(a.Data.SendingDomains, []string{"cedar.example"}) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("time_zone_defaults_to_new_york", func(t *testing.T) {
		var a accountOne
		app.Do(t, "POST", "/api/v2/accounts", admin, `{"number": "2002", "name": "Dune Vets"}`).JSON(t, &a)
		if a.Data.TimeZone != answerdesk.DefaultTimeZone {
			t.Fatalf("time zone %q", a.Data.TimeZone)
		}
	})
	for _, tc := range []struct{ name, body, field string }{
		{"taken_number_is_422", `{"number": "1001", "name": "Again"}`, "number"},
		{"number_must_be_digits", `{"number": "A-1", "name": "Letters"}`, "number"},
		{"name_is_required", `{"number": "2003"}`, "name"},
		{"unknown_time_zone", `{"number": "2003", "name": "X", "time_zone": "Mars/Olympus"}`, "time_zone"},
		{"number_of_wrong_type", `{"number": 2003, "name": "X"}`, "number"},
		{"bad_sms_number", `{"number": "2003", "name": "X", "sms_numbers": ["12"]}`, "sms_numbers"},
		{"sms_number_of_another_account", `{"number": "2003", "name": "X", "sms_numbers": ["+15550101001"]}`, "sms_numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAdminError(t, app.Do(t, "POST", "/api/v2/accounts", admin, tc.body), 422, "invalid_parameter", tc.field)
		})
	}
	t.Run("failed_create_leaves_nothing_behind", func(t *testing.T) {
		wantAdminError(t, app.Do(t, "GET", "/api/v2/accounts/2003", admin, nil), 404, "not_found", "")
	})
	t.Run("patch_name_and_time_zone", func(t *testing.T) {
		var a accountOne
		r := app.Do(t, "PATCH", "/api/v2/accounts/2001", admin, `{"name": "Cedar Law LLP", "time_zone": "America/Denver"}`)
		r.JSON(t, &a)
		if r.Status != 200 || a.Data.Name != "Cedar Law LLP" || a.Data.TimeZone != "America/Denver" || len(a.Data.SMSNumbers) != 1 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantAdminError(t, app.Do(t, "PATCH", "/api/v2/accounts/2001", admin, `{"time_zone": "Nowhere"}`), 422, "invalid_parameter", "time_zone")
		wantAdminError(t, app.Do(t, "PATCH", "/api/v2/accounts/9999", admin, `{"name": "X"}`), 404, "not_found", "")
	})
	t.Run("member_reads_own_account_not_others", func(t *testing.T) {
		var a accountOne
		r := app.Do(t, "GET", "/api/v2/accounts/1001", app.Alice.Token, nil)
		r.JSON(t, &a)
		if r.Status != 200 || a.Data.Number != "1001" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantAdminError(t, app.Do(t, "GET", "/api/v2/accounts/1002", app.Alice.Token, nil), 404, "not_found", "")
	})
	t.Run("sms_numbers_add_remove", func(t *testing.T) {
		var a accountOne
		app.Do(t, "POST", "/api/v2/accounts/2001/sms-numbers", admin, `{"number": "+15550102002"}`).JSON(t, &a)
		if !slices.Equal(a.Data.SMSNumbers, []string{"+15550102001", "+15550102002"}) {
			t.Fatalf("numbers %v", a.Data.SMSNumbers)
		}
		// DELETE answers with what it removed (the customer API conventions (Getting started docs page)); the account no longer lists it.
		r := app.Do(t, "DELETE", "/api/v2/accounts/2001/sms-numbers/%2B15550102001", admin, nil)
		var removed struct{ Data answerdesk.SMSNumber }
		r.JSON(t, &removed)
		if r.Status != 200 || removed.Data != (answerdesk.SMSNumber{AccountNumber: "2001", Number: "+15550102001"}) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		app.Do(t, "GET", "/api/v2/accounts/2001", admin, nil).JSON(t, &a)
		if !slices.Equal(a.Data.SMSNumbers, []string{"+15550102002"}) {
			t.Fatalf("numbers after removal %v", a.Data.SMSNumbers)
		}
		wantAdminError(t, app.Do(t, "DELETE", "/api/v2/accounts/2001/sms-numbers/%2B15550102001", admin, nil), 404, "not_found", "")
		wantAdminError(t, app.Do(t, "POST", "/api/v2/accounts/2001/sms-numbers", admin, `{}`), 422, "invalid_parameter", "number")
		wantAdminError(t, app.Do(t, "POST", "/api/v2/accounts/9999/sms-numbers", admin, `{"number": "+15550102009"}`), 404, "not_found", "")
	})
	t.Run("sending_domains_add_remove", func(t *testing.T) {
		var a accountOne
		app.Do(t, "POST", "/api/v2/accounts/2001/sending-domains", admin, `{"domain": "mail.cedar.example"}`).JSON(t, &a)
		if !slices.Equal(a.Data.SendingDomains, []string{"cedar.example", "mail.cedar.example"}) {
			t.Fatalf("domains %v", a.Data.SendingDomains)
		}
		wantAdminError(t, app.Do(t, "POST", "/api/v2/accounts/2001/sending-domains", admin, `{"domain": "not a domain"}`), 422, "invalid_parameter", "domain")
		r := app.Do(t, "DELETE", "/api/v2/accounts/2001/sending-domains/Mail.Cedar.Example", admin, nil)
		var removed struct{ Data answerdesk.SendingDomain }
		r.JSON(t, &removed)
		if r.Status != 200 || removed.Data != (answerdesk.SendingDomain{AccountNumber: "2001", Domain: "mail.cedar.example"}) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		app.Do(t, "GET", "/api/v2/accounts/2001", admin, nil).JSON(t, &a)
		if !slices.Equal(a.Data.SendingDomains, []string{"cedar.example"}) {
			t.Fatalf("domains after removal %v", a.Data.SendingDomains)
		}
	})
	t.Run("blacklist_stops_a_from_email_until_lifted", func(t *testing.T) {
		toDo := `{"account_number": "1001", "delivery_type": "email", "contact": "pat@example.com", "from_email": "office@acme.example",
			"message_text": "Hello", "schedule": {"rule": "immediately"}}`
		r := app.Do(t, "POST", "/api/v2/accounts/1001/email-blacklist", admin, `{"email": "Office@Acme.Example"}`)
		var e struct{ Data answerdesk.BlacklistEntry }
		r.JSON(t, &e)
		if r.Status != 200 || e.Data.Email != "office@acme.example" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantAdminError(t, app.Do(t, "POST", "/api/v2/to-dos", app.Alice.Token, toDo), 422, "invalid_parameter", "from_email")
		if r := app.Do(t, "DELETE", "/api/v2/accounts/1001/email-blacklist/office%40acme.example", admin, nil); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if r := app.Do(t, "POST", "/api/v2/to-dos", app.Alice.Token, toDo); r.Status != 200 {
			t.Fatalf("after lifting: %d %s", r.Status, r.Body)
		}
		wantAdminError(t, app.Do(t, "DELETE", "/api/v2/accounts/1001/email-blacklist/office@acme.example", admin, nil), 404, "not_found", "")
	})
	t.Run("errors_name_the_field_sent", func(t *testing.T) {
		for _, tc := range []struct{ path, body, field string }{
			{"/api/v2/accounts", `{"number": "6001", "name": "Taken", "sms_numbers": ["+15550101002"]}`, "sms_numbers"},
			{"/api/v2/accounts", `{"number": "6002", "name": "Bad", "sms_numbers": ["call me"]}`, "sms_numbers"},
			{"/api/v2/accounts", `{"number": "6003", "name": "Bad", "sending_domains": ["not a domain"]}`, "sending_domains"},
			{"/api/v2/accounts/1001/sms-numbers", `{"number": "+15550101002"}`, "number"},
		} {
			r := app.Do(t, "POST", tc.path, admin, tc.body)
			wantAdminError(t, r, 422, "invalid_parameter", tc.field)
			if strings.Contains(string(r.Body), "answerdesk:") {
				t.Errorf("%s: the message carries an internal prefix: %s", tc.body, r.Body)
			}
		}
	})
	t.Run("a_blacklist_is_the_accounts_own", func(t *testing.T) {
		toDo := `{"account_number": "1001", "delivery_type": "email", "contact": "pat@example.com", "from_email": "billing@acme.example",
			"message_text": "Hello", "schedule": {"rule": "immediately"}}`
		if r := app.Do(t, "POST", "/api/v2/accounts/1002/email-blacklist", admin, `{"email": "billing@acme.example"}`); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if r := app.Do(t, "POST", "/api/v2/to-dos", app.Alice.Token, toDo); r.Status != 200 {
			t.Fatalf("blacklisted for 1002 only, refused for 1001: %d %s", r.Status, r.Body)
		}
		wantAdminError(t, app.Do(t, "DELETE", "/api/v2/accounts/1001/email-blacklist/billing@acme.example", admin, nil), 404, "not_found", "")
		if r := app.Do(t, "DELETE", "/api/v2/accounts/1002/email-blacklist/billing@acme.example", admin, nil); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

func TestAdminProvisionsUsers(t *testing.T) {
	app := testapp.New(t)
	admin := app.Admin.Token
	var created answerdesk.UserDetail

	t.Run("create_without_password", func(t *testing.T) {
		var u userOne
		r := app.Do(t, "POST", "/api/v2/users", admin, `{"email": "Dispatch@Acme.Example", "accounts": ["1001", "1002"]}`)
		r.JSON(t, &u)
		if r.Status != 200 || u.Data.Email != "dispatch@acme.example" || u.Data.HasPassword || u.Data.Disabled ||
			!slices.Equal(u.Data.Accounts, []string{"1001", "1002"}) || u.Data.DisabledAt != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		created = u.Data
	})
	for _, tc := range []struct{ name, body, field string }{
		{"taken_email", `{"email": "alice@acme.example"}`, "email"},
		{"bad_email", `{"email": "not-an-address"}`, "email"},
		{"short_password", `{"email": "x@acme.example", "password": "short"}`, "password"},
		{"unknown_account", `{"email": "x@acme.example", "accounts": ["4242"]}`, "accounts"},
		{"admin_of_wrong_type", `{"email": "x@acme.example", "admin": "yes"}`, "admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantAdminError(t, app.Do(t, "POST", "/api/v2/users", admin, tc.body), 422, "invalid_parameter", tc.field)
		})
	}
	t.Run("list_and_get_by_id_or_email", func(t *testing.T) {
		var l struct {
			Data []answerdesk.UserDetail `json:"data"`
			Meta answerdesk.PageMeta     `json:"meta"`
		}
		r := app.Do(t, "GET", "/api/v2/users?page_size=2", admin, nil)
		r.JSON(t, &l)
		if r.Status != 200 || len(l.Data) != 2 || l.Meta.Total != 4 || !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var u userOne
		app.Do(t, "GET", "/api/v2/users/dispatch@acme.example", admin, nil).JSON(t, &u)
		if u.Data.ID != created.ID {
			t.Fatalf("by email: %+v", u.Data)
		}
		u = userOne{}
		app.Do(t, "GET", "/api/v2/users/dispatch%40acme.example", admin, nil).JSON(t, &u)
		if u.Data.ID != created.ID {
			t.Fatalf("by percent-encoded email: %+v", u.Data)
		}
		wantAdminError(t, app.Do(t, "GET", "/api/v2/users/999", admin, nil), 404, "not_found", "")
	})
	t.Run("patch_accounts_replaces_memberships", func(t *testing.T) {
		var u userOne
		r := app.Do(t, "PATCH", "/api/v2/users/"+strconv.FormatInt(created.ID, 10), admin, `{"accounts": ["1002"]}`)
		r.JSON(t, &u)
		if r.Status != 200 || !slices.Equal(u.Data.Accounts, []string{"1002"}) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("disabling_cuts_off_tokens_at_once_and_enabling_restores_them", func(t *testing.T) {
		path := "/api/v2/users/" + strconv.FormatInt(app.Bob.ID, 10)
		if r := app.Do(t, "GET", "/api/v2/messages", app.Bob.Token, nil); r.Status != 200 {
			t.Fatalf("before: %d", r.Status)
		}
		var u userOne
		app.Do(t, "PATCH", path, admin, `{"disabled": true}`).JSON(t, &u)
		if !u.Data.Disabled || u.Data.DisabledAt == nil {
			t.Fatalf("not disabled: %+v", u.Data)
		}
		wantAdminError(t, app.Do(t, "GET", "/api/v2/messages", app.Bob.Token, nil), 401, "unauthorized", "")
		app.Do(t, "PATCH", path, admin, `{"disabled": false}`).JSON(t, &u)
		if u.Data.Disabled {
			t.Fatalf("still disabled: %+v", u.Data)
		}
		if r := app.Do(t, "GET", "/api/v2/messages", app.Bob.Token, nil); r.Status != 200 {
			t.Fatalf("after enabling: %d", r.Status)
		}
	})
	t.Run("admin_cannot_lock_themselves_out", func(t *testing.T) {
		self := "/api/v2/users/" + strconv.FormatInt(app.Admin.ID, 10)
		wantAdminError(t, app.Do(t, "PATCH", self, admin, `{"disabled": true}`), 422, "invalid_parameter", "disabled")
		wantAdminError(t, app.Do(t, "PATCH", self, admin, `{"admin": false}`), 422, "invalid_parameter", "admin")
	})
	t.Run("admin_can_promote", func(t *testing.T) {
		var u userOne
		app.Do(t, "PATCH", "/api/v2/users/"+strconv.FormatInt(created.ID, 10), admin, `{"admin": true}`).JSON(t, &u)
		if !u.Data.Admin {
			t.Fatalf("not admin: %+v", u.Data)
		}
	})
}

func TestCreateMessageWithoutAccountExplains(t *testing.T) {
	app := testapp.New(t)
	loner := app.NewUser(t, "loner@example.com", false)
	r := app.Do(t, "POST", "/api/v2/messages", loner.Token, `{"message": {"content": "hello"}}`)
	wantAdminError(t, r, 422, "invalid_parameter", "account_number")
	if !strings.Contains(string(r.Body), "not a member of any account") {
		t.Fatalf("the error does not say why: %s", r.Body)
	}
}

// TestDisablingAUserCutsEveryCredential checks the other credentials than API tokens: an
// OAuth access token and its grant, a web session and the password.
func TestDisablingAUserCutsEveryCredential(t *testing.T) {
	app := testapp.New(t)
	ctx := context.Background()
	oauthStore := store.NewOAuthStore(app.DB)
	if err := oauthStore.SaveClient(ctx, &answerdesk.OAuthClient{ID: "client-1", Name: "Test client", RedirectURIs: []string{"http://127.0.0.1/cb"},
		AuthMethod: "none", CreatedAt: app.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	code := &answerdesk.AuthorizationCode{Hash: answerdesk.HashToken("code"), ClientID: "client-1", UserID: app.Bob.ID, RedirectURI: "http://127.0.0.1/cb",
		CodeChallenge: "x", Scopes: answerdesk.AllScopes, Resource: app.Server.URL + "/mcp/account", ExpiresAt: app.Clock.Now().Add(time.Minute)}
	if err := oauthStore.SaveCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	access := answerdesk.NewSecret(answerdesk.AccessTokenPrefix)
	exp := app.Clock.Now().Add(time.Hour)
	if _, err := oauthStore.CreateGrant(ctx, code, answerdesk.IssuedToken{Hash: answerdesk.HashToken(access), ExpiresAt: exp},
		answerdesk.IssuedToken{Hash: answerdesk.HashToken(answerdesk.NewSecret(answerdesk.RefreshTokenPrefix)), ExpiresAt: exp}); err != nil {
		t.Fatal(err)
	}
	sessions := store.NewSessionStore(app.DB)
	session, _, err := sessions.CreateSession(ctx, app.Bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	users := store.NewUserService(app.DB)
	if _, err := oauthStore.AuthenticateAccessToken(ctx, access); err != nil {
		t.Fatalf("before: access token: %v", err)
	}
	if grants, err := oauthStore.ListGrants(ctx, app.Bob.ID); err != nil || len(grants) != 1 {
		t.Fatalf("before: grants %v %v", grants, err)
	}
	if _, err := users.CheckPassword(ctx, app.Bob.Email, "test-password"); err != nil {
		t.Fatalf("before: password: %v", err)
	}

	// A code approved before the disable but exchanged after it.
	pending := &answerdesk.AuthorizationCode{Hash: answerdesk.HashToken("code-2"), ClientID: "client-1", UserID: app.Bob.ID, RedirectURI: "http://127.0.0.1/cb",
		CodeChallenge: "x", Scopes: answerdesk.AllScopes, Resource: app.Server.URL + "/mcp/account", ExpiresAt: app.Clock.Now().Add(time.Minute)}
	if err := oauthStore.SaveCode(ctx, pending); err != nil {
		t.Fatal(err)
	}

	if r := app.Do(t, "PATCH", "/api/v2/users/"+strconv.FormatInt(app.Bob.ID, 10), app.Admin.Token, `{"disabled": true}`); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if redeemed, err := oauthStore.RedeemCode(ctx, pending.Hash); err != nil {
		t.Fatal(err)
	} else if _, err := oauthStore.CreateGrant(ctx, redeemed, answerdesk.IssuedToken{Hash: answerdesk.HashToken("a2"), ExpiresAt: exp},
		answerdesk.IssuedToken{Hash: answerdesk.HashToken("r2"), ExpiresAt: exp}); err == nil {
		t.Error("a code approved before the disable was exchanged for a grant after it")
	}
	if _, err := oauthStore.AuthenticateAccessToken(ctx, access); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
		t.Errorf("OAuth access token still works: %v", err)
	}
	if _, err := sessions.FindSession(ctx, session); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
		t.Errorf("web session still works: %v", err)
	}
	if _, err := users.CheckPassword(ctx, app.Bob.Email, "test-password"); answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
		t.Errorf("sign-in still works: %v", err)
	}
	// ListGrants shows live grants only: the revoked one is gone.
	if grants, err := oauthStore.ListGrants(ctx, app.Bob.ID); err != nil || len(grants) != 0 {
		t.Errorf("live grants after disabling: %v %v", grants, err)
	}
	// Enabling restores the API token and the password, not the revoked OAuth grant.
	app.Do(t, "PATCH", "/api/v2/users/"+strconv.FormatInt(app.Bob.ID, 10), app.Admin.Token, `{"disabled": false}`)
	if _, err := users.CheckPassword(ctx, app.Bob.Email, "test-password"); err != nil {
		t.Errorf("sign-in after enabling: %v", err)
	}
	if _, err := oauthStore.AuthenticateAccessToken(ctx, access); err == nil {
		t.Error("the revoked grant's access token works again")
	}
}
