package rest_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/rest"
)

// TestOpenAPIV2RequestsMatchServer sends request bodies to the live router and validates
// each against its operation's request schema in the document the server serves: the
// document's verdict (valid or not) must be the server's (2xx, or 422). The table holds the
// bodies where the two once disagreed (null or blank where a value is required, values in
// another case, properties an update may not name, null for an optional admin property,
// "" for "none"), each beside a body both must refuse or both accept.
func TestOpenAPIV2RequestsMatchServer(t *testing.T) {
	app := testapp.New(t)
	r := app.Do(t, http.MethodGet, "/api/v2/openapi.json", "", nil)
	var doc map[string]any
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatalf("GET /api/v2/openapi.json: %d %v", r.Status, err)
	}
	obj := func(v any, k string) map[string]any {
		m, _ := v.(map[string]any)
		o, _ := m[k].(map[string]any)
		return o
	}
	schemaOf := func(method, template string) any {
		op := obj(obj(doc["paths"], template), strings.ToLower(method))
		return obj(obj(obj(op, "requestBody"), "content"), "application/json")["schema"]
	}
	alice, admin := app.Alice.Token, app.Admin.Token

	with := func(base map[string]any, kv ...any) map[string]any {
		out := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	without := func(base map[string]any, k string) map[string]any {
		out := maps.Clone(base)
		delete(out, k)
		return out
	}
	now := map[string]any{"rule": "immediately"}
	sms := map[string]any{"account_number": "1001", "delivery_type": "sms", "from": "+15550101001",
		"contact": "+15555550123", "message_text": "Reminder", "schedule": now}
	email := map[string]any{"account_number": "1001", "delivery_type": "email", "contact": "c@example.com",
		"from_email": "office@acme.example", "message_text": "Hello", "schedule": now}
	call := map[string]any{"account_number": "1001", "delivery_type": "call", "instructions": "Say hello", "schedule": now}
	weekly := func(days ...any) map[string]any {
		return with(call, "schedule", map[string]any{"frequency": "weekly", "days": days, "times": []string{"09:00"}})
	}

	created := app.Do(t, http.MethodPost, "/api/v2/to-dos", alice, call)
	var toDo struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(created.Body, &toDo); err != nil || created.Status != 200 {
		t.Fatalf("create a To Do: %d %s", created.Status, created.Body)
	}
	toDoPath := fmt.Sprintf("/api/v2/to-dos/%d", toDo.Data.ID)

	method := map[string]any{"url": "https://hooks.acme.example/in", "data": []any{map[string]any{"field": "text", "value": "{{message.content}}"}}}
	contact := func(m map[string]any) map[string]any {
		return map[string]any{"account_number": "1001", "name": "On call", "delivery_methods": []any{m}}
	}
	n := 0
	account := func(kv ...any) map[string]any {
		n++
		return with(map[string]any{"number": fmt.Sprint(3000 + n), "name": "Cedar"}, kv...)
	}
	user := func(kv ...any) map[string]any {
		n++
		return with(map[string]any{"email": fmt.Sprintf("u%d@cedar.example", n)}, kv...)
	}

	for _, c := range []struct {
		name             string
		method, template string
		path, token      string
		body             any
	}{
		// 2. The required-when conditions: null and blank are missing.
		{"sms", "POST", "/api/v2/to-dos", "", alice, sms},
		{"sms from null", "POST", "/api/v2/to-dos", "", alice, with(sms, "from", nil)},
		{"sms from blank", "POST", "/api/v2/to-dos", "", alice, with(sms, "from", "  ")},
		{"sms without from", "POST", "/api/v2/to-dos", "", alice, without(sms, "from")},
		{"email", "POST", "/api/v2/to-dos", "", alice, email},
		{"email from_email null", "POST", "/api/v2/to-dos", "", alice, with(email, "from_email", nil)},
		{"email message_text blank", "POST", "/api/v2/to-dos", "", alice, with(email, "message_text", "")},
		{"call instructions null", "POST", "/api/v2/to-dos", "", alice, with(call, "instructions", nil)},
		{"account_number null", "POST", "/api/v2/to-dos", "", alice, with(call, "account_number", nil)},
		{"account_number blank", "POST", "/api/v2/to-dos", "", alice, with(call, "account_number", " ")},
		{"content blank", "POST", "/api/v2/messages", "", alice, map[string]any{"message": map[string]any{"content": "  "}}},
		{"contact name blank", "POST", "/api/v2/on-call-contacts", "", alice, with(contact(method), "name", " ")},
		{"contact account_number blank", "POST", "/api/v2/on-call-contacts", "", alice, with(contact(method), "account_number", " ")},
		// 3. Enumerations the server matches in any case.
		{"delivery_type SMS", "POST", "/api/v2/to-dos", "", alice, with(sms, "delivery_type", "SMS")},
		{"delivery_type spaced", "POST", "/api/v2/to-dos", "", alice, with(sms, "delivery_type", " Sms ")},
		{"delivery_type SMS without from", "POST", "/api/v2/to-dos", "", alice, with(sms, "delivery_type", "SMS", "from", nil)},
		{"delivery_type Call without instructions", "POST", "/api/v2/to-dos", "", alice, with(call, "delivery_type", "Call", "instructions", nil)},
		{"delivery_type fax", "POST", "/api/v2/to-dos", "", alice, with(sms, "delivery_type", "fax")},
		{"rule Immediately", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": "Immediately"})},
		{"rule later", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": "later"})},
		{"frequency WEEKLY", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "WEEKLY", "days": []string{"monday"}, "times": []string{"09:00"}})},
		{"frequency hourly", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "hourly", "times": []string{"09:00"}})},
		{"weekday Monday", "POST", "/api/v2/to-dos", "", alice, weekly("Monday", " FRIDAY ")},
		{"weekday Mon", "POST", "/api/v2/to-dos", "", alice, weekly("Mon")},
		{"daily days empty", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily", "days": []any{}, "times": []string{"09:00"}})},
		{"daily days", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "Daily", "days": []any{1}, "times": []string{"09:00"}})},
		{"weekly days numbers", "POST", "/api/v2/to-dos", "", alice, weekly(1, 2)},
		{"weekly days null", "POST", "/api/v2/to-dos", "", alice, weekly()},
		{"weekly days empty", "POST", "/api/v2/to-dos", "", alice, weekly([]any{}...)},
		{"monthly days names", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "MONTHLY", "days": []any{"monday"}, "times": []string{"09:00"}})},
		{"monthly days", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "monthly", "days": []any{1, 31}, "times": []string{"09:00"}})},
		{"monthly without days", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "monthly", "times": []string{"09:00"}})},
		{"recurring without frequency", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"times": []string{"09:00"}})},
		{"recurring rule null", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": nil, "frequency": "daily", "times": []string{"09:00"}})},
		{"recurring without times", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily"})},
		{"recurring times spaced", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily", "times": []string{" 9:05 "}})},
		{"immediately with times", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": "immediately", "times": []string{"09:00"}})},
		{"immediately with times null", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": "immediately", "times": nil, "frequency": nil})},
		{"today with frequency", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": "today", "times": []string{"23:59"}, "frequency": "daily"})},
		{"immediately with count", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"rule": "immediately", "count": 2})},
		{"until and count", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily", "times": []string{"09:00"}, "until": "2099-01-01", "count": 3})},
		{"until and count null", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily", "times": []string{"09:00"}, "until": "2099-01-01", "count": nil})},
		{"interval 1000", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily", "interval": 1000, "times": []string{"09:00"}})},
		{"interval 1001", "POST", "/api/v2/to-dos", "", alice, with(call, "schedule", map[string]any{"frequency": "daily", "interval": 1001, "times": []string{"09:00"}})},
		{"origin chat", "POST", "/api/v2/messages", "", alice, map[string]any{"message": map[string]any{"content": "Hi", "origin": "chat"}}},
		{"origin fax", "POST", "/api/v2/messages", "", alice, map[string]any{"message": map[string]any{"content": "Hi", "origin": "fax"}}},
		{"non_message_type Spam", "POST", "/api/v2/messages", "", alice, map[string]any{"message": map[string]any{"content": "Hi", "non_message_type": "Spam"}}},
		{"non_message_type spam", "POST", "/api/v2/messages", "", alice, map[string]any{"message": map[string]any{"content": "Hi", "non_message_type": "spam"}}},
		{"payload_type form", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "payload_type", "form"))},
		{"payload_type xml", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "payload_type", "xml"))},
		// 1. What an update may not name.
		{"patch name", "PATCH", "/api/v2/to-dos/{id}", toDoPath, alice, map[string]any{"name": "Renamed"}},
		{"patch account_number", "PATCH", "/api/v2/to-dos/{id}", toDoPath, alice, map[string]any{"account_number": "1001"}},
		{"patch delivery_type", "PATCH", "/api/v2/to-dos/{id}", toDoPath, alice, map[string]any{"delivery_type": "call"}},
		{"patch delivery_type null", "PATCH", "/api/v2/to-dos/{id}", toDoPath, alice, map[string]any{"delivery_type": nil}},
		{"patch schedule null", "PATCH", "/api/v2/to-dos/{id}", toDoPath, alice, map[string]any{"schedule": nil}},
		{"patch unknown", "PATCH", "/api/v2/to-dos/{id}", toDoPath, alice, map[string]any{"colour": "blue"}},
		// 4. null for optional admin properties, header values, and "" meaning none.
		{"account", "POST", "/api/v2/accounts", "", admin, account()},
		{"account nulls", "POST", "/api/v2/accounts", "", admin, account("time_zone", nil, "sms_numbers", nil, "sending_domains", nil)},
		{"account number spaced", "POST", "/api/v2/accounts", "", admin, account("number", " 3900 ")},
		{"account number letters", "POST", "/api/v2/accounts", "", admin, account("number", "39a")},
		{"account name null", "POST", "/api/v2/accounts", "", admin, account("name", nil)},
		{"account update null", "PATCH", "/api/v2/accounts/{number}", "/api/v2/accounts/1001", admin, map[string]any{"name": nil, "time_zone": nil}},
		{"user nulls", "POST", "/api/v2/users", "", admin, user("password", nil, "admin", nil, "accounts", nil)},
		{"user password empty", "POST", "/api/v2/users", "", admin, user("password", "")},
		{"user password short", "POST", "/api/v2/users", "", admin, user("password", "short")},
		{"user update nulls", "PATCH", "/api/v2/users/{id}", fmt.Sprintf("/api/v2/users/%d", app.Bob.ID), admin, map[string]any{"admin": nil, "disabled": nil, "accounts": nil}},
		{"header value null", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"X-Api-Key": nil}))},
		{"header value with a control", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"X-Api-Key": "a\x01b"}))},
		{"header value with a tab", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"X-Api-Key": "a\tb é"}))},
		{"header host", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"host": "x"}))},
		{"header keep-alive", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"Keep-Alive": "x"}))},
		{"header webhook-other", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"webhook-other": "x"}))},
		{"header proxy-authorization", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"Proxy-Authorization": "x"}))},
		{"header hosts", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "headers", map[string]any{"Hosts": "x"}))},
		{"signing_secret empty", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "signing_secret", ""))},
		{"signing_secret short", "POST", "/api/v2/on-call-contacts", "", alice, contact(with(method, "signing_secret", "whsec_abc"))},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if path == "" {
				path = c.template
			}
			s := schemaOf(c.method, c.template)
			if s == nil {
				t.Fatalf("%s %s has no documented request body", c.method, c.template)
			}
			errs := rest.OAValidateRequest(doc, s, c.body, c.name)
			resp := app.Do(t, c.method, path, c.token, c.body)
			docValid, serverValid := len(errs) == 0, resp.Status/100 == 2
			if !serverValid && resp.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%s %s: status %d, want 2xx or 422: %.300s", c.method, path, resp.Status, resp.Body)
			}
			if docValid != serverValid {
				t.Errorf("%s %s: the document says valid=%v %v; the server answers %d %.300s", c.method, path, docValid, errs, resp.Status, resp.Body)
			}
		})
	}
}
