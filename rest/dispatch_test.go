package rest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

const goodContact = `{"account_number":"1001","name":"Dispatch board","escalation_level":1,
	"delivery_methods":[{"type":"external_api","url":"https://hooks.example.com/answerdesk","payload_type":"JSON",
	"data":[{"field":"text","value":"{{message.content}}"},{"field":"callback","value":"{{message.answers.Callback number}}"}],
	"basic_auth":{"username":"acme","password":"hunter22"},"headers":{"X-Api-Key":"k-123"},
	"signing_secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}]}`

// TestUnknownMergeVariable: a variable that can never resolve is accepted when the method
// is configured, and a delivery of it carries the warning from the moment it is queued,
// before its first attempt renders it (as an empty string: TestDispatchRendersEachAttempt
// in dispatch/).
func TestUnknownMergeVariable(t *testing.T) {
	app := testapp.New(t)
	contact := `{"account_number":"1001","name":"Typo","delivery_methods":[{"url":"https://hooks.example.com/x",
		"data":[{"field":"a","value":"x{{message.nope}}y"},{"field":"b","value":"{{message.content}}"}]}]}`
	if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, contact); r.Status != 200 {
		t.Fatalf("create contact: %d %s", r.Status, r.Body)
	}
	var msg struct{ Data answerdesk.Message }
	app.Do(t, "POST", "/api/v2/messages", app.Alice.Token, `{"message":{"account_number":"1001","content":"Leak"}}`).JSON(t, &msg)
	var l struct{ Data []answerdesk.DispatchDelivery }
	app.Do(t, "GET", fmt.Sprint("/api/v2/dispatch-deliveries?message_id=", msg.Data.ID), app.Alice.Token, nil).JSON(t, &l)
	if len(l.Data) != 1 {
		t.Fatalf("deliveries of message %d: %+v", msg.Data.ID, l.Data)
	}
	if w := l.Data[0].Warnings; len(w) != 1 || w[0] != "unknown merge variable {{message.nope}}" {
		t.Fatalf("warnings %q, want the unknown variable named as soon as the delivery is queued", w)
	}
}

func TestOnCallContacts(t *testing.T) {
	app := testapp.New(t)
	r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, goodContact)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	t.Run("secrets_are_write_only", func(t *testing.T) {
		for _, secret := range []string{"hunter22", "k-123", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "password"} {
			if strings.Contains(string(r.Body), secret) {
				t.Errorf("response shows %q: %s", secret, r.Body)
			}
		}
		var got struct{ Data answerdesk.OnCallContact }
		r.JSON(t, &got)
		m := got.Data.DeliveryMethods[0]
		if got.Data.AccountNumber != "1001" || got.Data.EscalateAfterMinutes != 15 || m.BasicAuth.Username != "acme" ||
			!m.SigningSecretSet || m.Headers["X-Api-Key"] != "[write-only]" || m.PayloadType != "JSON" || len(m.Data) != 2 {
			t.Fatalf("contact %+v method %+v", got.Data, m)
		}
	})
	var created struct{ Data answerdesk.OnCallContact }
	r.JSON(t, &created)

	t.Run("list_and_visibility", func(t *testing.T) {
		var l struct {
			Data []answerdesk.OnCallContact
			Meta answerdesk.PageMeta
		}
		app.Do(t, "GET", "/api/v2/on-call-contacts", app.Alice.Token, nil).JSON(t, &l)
		if l.Meta.Total != 1 || l.Data[0].ID != created.Data.ID {
			t.Fatalf("alice's list %+v", l)
		}
		app.Do(t, "GET", "/api/v2/on-call-contacts", app.Bob.Token, nil).JSON(t, &l)
		if l.Meta.Total != 0 {
			t.Fatalf("bob sees %d contacts", l.Meta.Total)
		}
		wantError(t, app.Do(t, "DELETE", fmt.Sprint("/api/v2/on-call-contacts/", created.Data.ID), app.Bob.Token, nil), 404, "not_found")
		wantError(t, app.Do(t, "POST", "/api/v2/on-call-contacts", app.Bob.Token, goodContact), 422, "invalid_parameter", "account_number")
	})
	t.Run("delete_answers_with_the_contact", func(t *testing.T) {
		r := app.Do(t, "DELETE", fmt.Sprint("/api/v2/on-call-contacts/", created.Data.ID), app.Alice.Token, nil)
		var got struct{ Data answerdesk.OnCallContact }
		r.JSON(t, &got)
		if r.Status != 200 || got.Data.ID != created.Data.ID {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		wantError(t, app.Do(t, "DELETE", fmt.Sprint("/api/v2/on-call-contacts/", created.Data.ID), app.Alice.Token, nil), 404, "not_found")
	})

	method := func(m string) string {
		return `{"account_number":"1001","name":"X","delivery_methods":[` + m + `]}`
	}
	bad := []struct{ name, body, field string }{
		{"no_name", `{"account_number":"1001","delivery_methods":[{"url":"https://a.example","data":[{"field":"a","value":"b"}]}]}`, "name"},
		{"no_methods", `{"account_number":"1001","name":"X","delivery_methods":[]}`, "delivery_methods"},
		{"level_0", `{"account_number":"1001","name":"X","escalation_level":0,"delivery_methods":[{"url":"https://a.example","data":[{"field":"a","value":"b"}]}]}`, "escalation_level"},
		{"level_string", `{"account_number":"1001","name":"X","escalation_level":"one","delivery_methods":[]}`, "escalation_level"},
		{"bad_type", method(`{"type":"sms","url":"https://a.example","data":[{"field":"a","value":"b"}]}`), "delivery_methods[0].type"},
		{"ftp_url", method(`{"url":"ftp://a.example/x","data":[{"field":"a","value":"b"}]}`), "delivery_methods[0].url"},
		{"relative_url", method(`{"url":"/hook","data":[{"field":"a","value":"b"}]}`), "delivery_methods[0].url"},
		{"url_with_credentials", method(`{"url":"https://u:p@a.example","data":[{"field":"a","value":"b"}]}`), "delivery_methods[0].url"},
		{"bad_payload_type", method(`{"url":"https://a.example","payload_type":"XML","data":[{"field":"a","value":"b"}]}`), "delivery_methods[0].payload_type"},
		{"no_data", method(`{"url":"https://a.example"}`), "delivery_methods[0].data"},
		{"empty_field", method(`{"url":"https://a.example","data":[{"field":"","value":"b"}]}`), "delivery_methods[0].data[0].field"},
		{"null_value", method(`{"url":"https://a.example","data":[{"field":"a","value":null}]}`), "delivery_methods[0].data[0].value"},
		{"no_value", method(`{"url":"https://a.example","data":[{"field":"a"}]}`), "delivery_methods[0].data[0].value"},
		{"basic_auth_half", method(`{"url":"https://a.example","data":[{"field":"a","value":"b"}],"basic_auth":{"username":"u"}}`), "delivery_methods[0].basic_auth"},
		{"reserved_header_host", method(`{"url":"https://a.example","data":[{"field":"a","value":"b"}],"headers":{"Host":"evil.example"}}`), "delivery_methods[0].headers"},
		{"reserved_header_length", method(`{"url":"https://a.example","data":[{"field":"a","value":"b"}],"headers":{"content-length":"5"}}`), "delivery_methods[0].headers"},
		{"header_newline", method(`{"url":"https://a.example","data":[{"field":"a","value":"b"}],"headers":{"X-A":"a\nb"}}`), "delivery_methods[0].headers"},
		{"header_control_character", method(`{"url":"https://a.example","data":[{"field":"a","value":"b"}],"headers":{"X-A":"a\u0001b"}}`), "delivery_methods[0].headers"},
		{"bad_signing_secret", method(`{"url":"https://a.example","data":[{"field":"a","value":"b"}],"signing_secret":"secret"}`), "delivery_methods[0].signing_secret"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, tc.body), 422, "invalid_parameter", tc.field)
		})
	}
	wantError(t, app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, `{"name":`), 400, "processing_error")
}

func TestDispatchDeliveriesLog(t *testing.T) {
	app := testapp.New(t)
	if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, goodContact); r.Status != 200 {
		t.Fatal(string(r.Body))
	}
	m1 := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
	app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
	var l struct {
		Data []answerdesk.DispatchDelivery
		Meta answerdesk.PageMeta
	}
	app.Do(t, "GET", "/api/v2/dispatch-deliveries", app.Alice.Token, nil).JSON(t, &l)
	if l.Meta.Total != 2 || l.Data[0].Status != "pending" || l.Data[0].URL != "https://hooks.example.com/answerdesk" || l.Data[0].UUID == "" {
		t.Fatalf("log %+v", l)
	}
	app.Do(t, "GET", fmt.Sprint("/api/v2/dispatch-deliveries?status=pending&message_id=", m1.ID), app.Alice.Token, nil).JSON(t, &l)
	if l.Meta.Total != 1 || l.Data[0].MessageID != m1.ID {
		t.Fatalf("filtered log %+v", l)
	}
	app.Do(t, "GET", "/api/v2/dispatch-deliveries?status=delivered", app.Alice.Token, nil).JSON(t, &l)
	if l.Meta.Total != 0 {
		t.Fatalf("delivered %d", l.Meta.Total)
	}
	app.Do(t, "GET", "/api/v2/dispatch-deliveries", app.Bob.Token, nil).JSON(t, &l)
	if l.Meta.Total != 0 {
		t.Fatalf("bob sees %d deliveries", l.Meta.Total)
	}
	for q, field := range map[string]string{"?status=lost": "status", "?message_id=x": "message_id", "?page_size=500": "page_size"} {
		wantError(t, app.Do(t, "GET", "/api/v2/dispatch-deliveries"+q, app.Alice.Token, nil), 422, "invalid_parameter", field)
	}
	wantError(t, app.Do(t, "POST", "/api/v2/dispatch-deliveries/999/replay", app.Alice.Token, nil), 404, "not_found")
}

// TestOnCallContactLimits: the configuration limits of the External API dispatching docs page that bound how much one
// message can make the service render, store and send (merge-variable
// amplification): 50 data fields per method, 10 methods per contact, 100 contacts per account.
func TestOnCallContactLimits(t *testing.T) {
	app := testapp.New(t)
	fields := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"field":"f%d","value":"{{message.content}}"}`, i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	methods := func(n, fieldCount int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `{"type":"external_api","url":"https://hooks.example.com/` + fmt.Sprint(i) + `","data":` + fields(fieldCount) + `}`
		}
		return `{"account_number":"1001","name":"Limits","delivery_methods":[` + strings.Join(parts, ",") + `]}`
	}
	t.Run("50_data_fields_are_accepted", func(t *testing.T) {
		if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, methods(1, answerdesk.MaxPayloadFields)); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("51_data_fields_are_422", func(t *testing.T) {
		wantError(t, app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, methods(1, answerdesk.MaxPayloadFields+1)),
			422, "invalid_parameter", "delivery_methods[0].data")
	})
	t.Run("10_delivery_methods_are_accepted", func(t *testing.T) {
		if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, methods(answerdesk.MaxDeliveryMethodsPerContact, 1)); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("11_delivery_methods_are_422", func(t *testing.T) {
		wantError(t, app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, methods(answerdesk.MaxDeliveryMethodsPerContact+1, 1)),
			422, "invalid_parameter", "delivery_methods")
	})
	t.Run("101st_contact_of_an_account_is_422", func(t *testing.T) {
		ctx := context.Background()
		alice := app.Caller(t, app.Alice)
		in, err := answerdesk.ParseOnCallContactCreate([]byte(methods(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		var last *answerdesk.OnCallContact
		for range answerdesk.MaxOnCallContactsPerAccount - 2 { // two were created above
			if last, err = app.Dispatch.CreateOnCallContact(ctx, alice, in); err != nil {
				t.Fatal(err)
			}
		}
		e := wantError(t, app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, methods(1, 1)), 422, "invalid_parameter", "account_number")
		if !strings.Contains(e.Errors[0].Message, "100") {
			t.Errorf("the error does not say the limit: %+v", e.Errors)
		}
		// Another account has its own allowance, and deleting a contact makes room again.
		if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Bob.Token, strings.Replace(methods(1, 1), "1001", "1002", 1)); r.Status != 200 {
			t.Fatalf("bob: %d %s", r.Status, r.Body)
		}
		if r := app.Do(t, "DELETE", fmt.Sprint("/api/v2/on-call-contacts/", last.ID), app.Alice.Token, nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if r := app.Do(t, "POST", "/api/v2/on-call-contacts", app.Alice.Token, methods(1, 1)); r.Status != 200 {
			t.Fatalf("after a delete: %d %s", r.Status, r.Body)
		}
	})
}

// TestReplayRateLimit: each body-less replay sends a stored body (up to 256 KiB) again at
// once, which made the service a bandwidth amplifier. Replays are limited to
// answerdesk.ReplayRateLimit per minute per account: the account of the delivery, whoever
// asks.
func TestReplayRateLimit(t *testing.T) {
	app := testapp.New(t)
	for _, u := range []testapp.User{app.Alice, app.Bob} {
		account := "1001"
		if u.Email == app.Bob.Email {
			account = "1002"
		}
		if r := app.Do(t, "POST", "/api/v2/on-call-contacts", u.Token, strings.Replace(goodContact, "1001", account, 1)); r.Status != 200 {
			t.Fatalf("create contact: %d %s", r.Status, r.Body)
		}
	}
	app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
	app.CreateMessage(t, app.Bob, testapp.Start, map[string]any{"account_number": "1002"})
	deliveryOf := func(u testapp.User) int64 {
		var l struct{ Data []answerdesk.DispatchDelivery }
		app.Do(t, "GET", "/api/v2/dispatch-deliveries", u.Token, nil).JSON(t, &l)
		if len(l.Data) != 1 {
			t.Fatalf("%s has %d deliveries", u.Email, len(l.Data))
		}
		return l.Data[0].ID
	}
	alices, bobs := deliveryOf(app.Alice), deliveryOf(app.Bob)
	replay := func(u testapp.User, id int64) *testapp.Response {
		return app.Do(t, "POST", fmt.Sprintf("/api/v2/dispatch-deliveries/%d/replay", id), u.Token, nil)
	}

	t.Run("30_replays_a_minute_pass", func(t *testing.T) {
		for i := range answerdesk.ReplayRateLimit {
			if r := replay(app.Alice, alices); r.Status != 200 {
				t.Fatalf("replay %d: %d %s", i+1, r.Status, r.Body)
			}
		}
	})
	t.Run("the_31st_is_429_with_retry_after", func(t *testing.T) {
		r := replay(app.Alice, alices)
		wantError(t, r, 429, "rate_limited")
		if got := r.Header.Get("Retry-After"); got != "60" {
			t.Fatalf("Retry-After %q, want 60 (the window turns in a minute)", got)
		}
	})
	t.Run("the_limit_is_the_account's_not_the_caller's", func(t *testing.T) {
		wantError(t, replay(app.Admin, alices), 429, "rate_limited")
		if r := replay(app.Bob, bobs); r.Status != 200 {
			t.Fatalf("another account's replay: %d %s", r.Status, r.Body)
		}
	})
	t.Run("unknown_deliveries_are_still_404", func(t *testing.T) {
		wantError(t, replay(app.Alice, 999), 404, "not_found")
		wantError(t, replay(app.Alice, bobs), 404, "not_found")
	})
	t.Run("the_next_minute_allows_replays_again", func(t *testing.T) {
		app.Clock.Advance(answerdesk.ReplayRateWindow)
		if r := replay(app.Alice, alices); r.Status != 200 {
			t.Fatalf("after a minute: %d %s", r.Status, r.Body)
		}
	})
}
