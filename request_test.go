package answerdesk_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// TestRequestDecoding pins the rules every body parser shares: every bad property reported
// at once, properties matched by exact name, unknown ones ignored, null the same as absent.
func TestRequestDecoding(t *testing.T) {
	parsers := map[string]func([]byte) error{
		"message": func(b []byte) error { _, err := answerdesk.ParseMessageCreate(json.RawMessage(b)); return err },
		"todo":    func(b []byte) error { _, err := answerdesk.ParseToDoCreate(b); return err },
		"patch":   func(b []byte) error { _, err := answerdesk.ParseToDoPatch(b); return err },
		"contact": func(b []byte) error { _, err := answerdesk.ParseOnCallContactCreate(b); return err },
		"account": func(b []byte) error { var in answerdesk.AccountCreate; return answerdesk.DecodeJSONObject(b, &in) },
	}
	for _, tc := range []struct {
		parser, body string
		want         []string // "field: message", in order; nil for no error
	}{
		{"message", `{"content": 5, "origin": true, "is_emergency": "yes", "escalation_level_id": 1.5, "email": 3}`,
			[]string{"content: must be a string", "origin: must be a string", "is_emergency: must be a boolean",
				"escalation_level_id: must be a positive integer", "email: must be a string"}},
		{"message", `{"Content": "x", "content": null}`, []string{"content: is required and must be a non-empty string"}},
		{"message", `{"content": "x", "unknown": {"a": 1}, "origin": null, "answers": null}`, nil},
		{"message", `[]`, []string{"message: must be a JSON object"}},
		{"todo", `{"account_number": 7, "delivery_type": "call", "instructions": "x", "schedule": {"rule": 1, "times": "09:00"}}`,
			[]string{"account_number: must be a string", "schedule.rule: must be a string", `schedule.times: must be a list of times "HH:MM"`}},
		{"todo", `{"account_number": "1001", "delivery_type": "call", "instructions": "x", "schedule": {"rule": "immediately", "Frequency": "daily", "count": null}}`, nil},
		{"todo", `{"account_number": "1001", "delivery_type": "call", "instructions": "x", "schedule": []}`, []string{"schedule: must be an object"}},
		{"patch", `{"account_number": null, "schedule": null}`, []string{
			"account_number: cannot be changed; cancel this To Do and create a new one", "schedule: cannot be removed; give a new schedule or leave it out"}},
		{"patch", `{"Account_Number": "1", "name": null}`, nil},
		{"contact", `{"account_number": 1, "name": "x", "escalation_level": 1.5, "delivery_methods": {}}`, []string{
			"account_number: has the wrong type (number): see the example in the API reference",
			"escalation_level: has the wrong type (number 1.5): see the example in the API reference",
			"delivery_methods: has the wrong type (object): see the example in the API reference"}},
		{"contact", `{"account_number": "1", "name": "x", "delivery_methods": [{"url": "https://a.example", "data": 3, "headers": []}, null]}`, []string{
			"delivery_methods[0]: must be an object with type, url, payload_type, data, and optional basic_auth, headers, signing_secret (check the value types)",
			"delivery_methods[1].url: is required", `delivery_methods[1].data: is required: [{"field": "...", "value": "..."}]`}},
		{"account", `{"number": 5, "Name": 3, "sms_numbers": ["+15550100", 7], "time_zone": null}`, []string{
			"number: has the wrong type (number): see the example in the API reference",
			"sms_numbers: has the wrong type (number): see the example in the API reference"}},
		// What the document states nullable is taken as left out.
		{"message", `{"content": "x", "account_number": null}`, nil},
		{"contact", `{"account_number": "1", "name": "x", "escalation_level": null, "delivery_methods": [{"type": null, "payload_type": null,
			"url": "https://a.example", "data": [{"field": "f", "value": "v"}], "basic_auth": {"username": null, "password": null}}]}`, nil},
		{"account", `null`, []string{"the request body must be a JSON object"}},
		// The JSON type decides: a number in a string is a string. A whole number is an
		// integer however it is written (JSON Schema's rule, and MCP's float arguments).
		{"message", `{"content": "x", "escalation_level_id": "5"}`, []string{"escalation_level_id: must be an integer"}},
		{"message", `{"content": "x", "escalation_level_id": 2.0}`, nil},
		{"message", `{"content": "x", "escalation_level_id": 1e400}`, []string{"escalation_level_id: must be a positive integer"}},
		{"todo", `{"account_number": "1001", "delivery_type": "call", "instructions": "x", "schedule": {"frequency": "daily", "interval": "2", "times": ["09:00"]}}`,
			[]string{"schedule.interval: must be an integer from 1 to 1000"}},
		{"todo", `{"account_number": "1001", "delivery_type": "call", "instructions": "x", "schedule": {"frequency": "daily", "interval": 2.0, "count": 3e0, "times": ["09:00"]}}`, nil},
	} {
		err := parsers[tc.parser]([]byte(tc.body))
		var got []string
		if e := (*answerdesk.Error)(nil); errors.As(err, &e) {
			for _, f := range e.Fields {
				got = append(got, f.Field+": "+f.Message)
			}
			if len(e.Fields) == 0 {
				got = []string{e.Message}
			}
		} else if err != nil {
			t.Fatalf("%s %s: %v", tc.parser, tc.body, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.parser, tc.body, got, tc.want)
		}
	}
}

// TestToDoUpdateRequestHasCreateProperties checks that the body ParseToDoPatch decodes (and
// the API reference documents) names every property of a create, so that a property added
// to the create is either accepted by an update or refused by it, never ignored.
func TestToDoUpdateRequestHasCreateProperties(t *testing.T) {
	names := func(typ reflect.Type) []string {
		var out []string
		for _, f := range reflect.VisibleFields(typ) {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); !f.Anonymous && name != "" && name != "-" {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	create, update := names(reflect.TypeFor[answerdesk.ToDoCreateRequest]()), names(reflect.TypeFor[answerdesk.ToDoUpdateRequest]())
	if !slices.Equal(create, update) {
		t.Errorf("ToDoUpdateRequest properties %v, ToDoCreateRequest %v", update, create)
	}
	for _, p := range []string{"account_number", "delivery_type"} {
		if _, err := answerdesk.ParseToDoPatch([]byte(`{"` + p + `": null}`)); err == nil {
			t.Errorf("PATCH naming %s is accepted", p)
		}
	}
}

func TestAnswersDepth(t *testing.T) {
	nest := func(n int) string {
		return `{"content":"x","answers":` + strings.Repeat(`{"a":`, n) + `1` + strings.Repeat(`}`, n) + `}`
	}
	for _, tc := range []struct {
		name string
		body string
		ok   bool
	}{
		{"at the bound", nest(answerdesk.MaxAnswersDepth), true},
		{"one past", nest(answerdesk.MaxAnswersDepth + 1), false},
		{"arrays count", `{"content":"x","answers":{"a":` + strings.Repeat(`[`, answerdesk.MaxAnswersDepth) + strings.Repeat(`]`, answerdesk.MaxAnswersDepth) + `}}`, false},
		{"brackets in strings do not", `{"content":"x","answers":{"a":"` + strings.Repeat(`{[`, 100) + `\"{"}}`, true},
	} {
		_, err := answerdesk.ParseMessageCreate([]byte(tc.body))
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok %v", tc.name, err, tc.ok)
		}
		if !tc.ok && !strings.Contains(fmt.Sprint(err), "deep") {
			t.Errorf("%s: err = %v, want the depth named", tc.name, err)
		}
	}
}
