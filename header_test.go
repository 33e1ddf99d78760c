package answerdesk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// TestValidHeader: the configured headers of a delivery method are checked by one rule, which
// the configuration API (ParseDeliveryMethod) and the dispatcher (building the request from the
// stored row) both call.
func TestValidHeader(t *testing.T) {
	for _, tc := range []struct {
		name, header, value string
		nameOK, valueOK     bool
	}{
		{"a_token_and_a_line", "X-Api-Key", "secret value", true, true},
		{"every_token_character", "!#$%&'*+-.^_`|~09azAZ", "a\ttab is fine", true, true},
		{"a_name_of_100_bytes", strings.Repeat("x", 100), "", true, true},
		{"a_name_of_101_bytes_is_too_long", strings.Repeat("x", 101), "", false, true},
		{"an_empty_name", "", "v", false, true},
		{"a_space_in_the_name", "X Api", "v", false, true},
		{"a_colon_in_the_name", "X-Api:", "v", false, true},
		{"a_non_ascii_name", "X-Clé", "v", false, true},
		{"a_newline_in_the_value", "X-Api", "a\r\nInjected: yes", true, false},
		{"a_del_in_the_value", "X-Api", "a\x7f", true, false},
		{"a_value_of_4096_bytes", "X-Api", strings.Repeat("v", 4096), true, true},
		{"a_value_of_4097_bytes_is_too_long", "X-Api", strings.Repeat("v", 4097), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := answerdesk.ValidHeaderName(tc.header); got != tc.nameOK {
				t.Errorf("ValidHeaderName(%q) = %v, want %v", tc.header, got, tc.nameOK)
			}
			if got := answerdesk.ValidHeaderValue(tc.value); got != tc.valueOK {
				t.Errorf("ValidHeaderValue(%.20q) = %v, want %v", tc.value, got, tc.valueOK)
			}
		})
	}
}

// TestHeaderGivenTwice: header names are case-insensitive, so a delivery method whose
// headers name one header twice ("X-Key" and "x-key") is a 422, not one of the two values
// sent at random; and the errors of several bad headers come in the same order every time.
func TestHeaderGivenTwice(t *testing.T) {
	body := func(headers string) []byte {
		return []byte(`{"account_number": "1001", "name": "Board", "delivery_methods": [{"type": "external_api",
			"url": "https://hooks.example.com/x", "data": [{"field": "id", "value": "{{message.id}}"}],
			"headers": ` + headers + `}]}`)
	}
	_, err := answerdesk.ParseOnCallContactCreate(body(`{"X-Key": "one", "x-key": "two"}`))
	var e *answerdesk.Error
	if !errors.As(err, &e) || e.Code != answerdesk.EINVALID || len(e.Fields) != 1 ||
		e.Fields[0].Field != "delivery_methods[0].headers" || !strings.Contains(e.Fields[0].Message, "same header") {
		t.Fatalf("X-Key and x-key: %v, want one 422 on delivery_methods[0].headers", err)
	}
	c, err := answerdesk.ParseOnCallContactCreate(body(`{"X-Key": "one", "X-Other": "two"}`))
	if err != nil || len(c.Methods[0].Headers) != 2 {
		t.Fatalf("two distinct headers: %v", err)
	}
	bad := body(`{"Host": "a", "X A": "b", "Connection": "c", "X-Z": "d\n", "Content-Length": "1"}`)
	_, first := answerdesk.ParseOnCallContactCreate(bad)
	for range 20 {
		if _, again := answerdesk.ParseOnCallContactCreate(bad); again.Error() != first.Error() {
			t.Fatalf("the errors changed order:\n%v\n%v", first, again)
		}
	}
}

// TestBasicAuthControlCharacters: RFC 7617 §2 forbids control characters in the user-id and
// the password of Basic auth, so a delivery method's basic_auth holding one is a 422 naming it.
func TestBasicAuthControlCharacters(t *testing.T) {
	for _, tc := range []struct{ name, auth, field string }{
		{"a_line_break_in_the_username", `{"username": "a\r\nb", "password": "p"}`, "delivery_methods[0].basic_auth.username"},
		{"a_tab_in_the_password", `{"username": "a", "password": "p\tq"}`, "delivery_methods[0].basic_auth.password"},
		{"a_del_in_the_password", `{"username": "a", "password": "p\u007f"}`, "delivery_methods[0].basic_auth.password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := answerdesk.ParseOnCallContactCreate([]byte(`{"account_number": "1001", "name": "Board",
				"delivery_methods": [{"type": "external_api", "url": "https://hooks.example.com/x",
				"data": [{"field": "id", "value": "{{message.id}}"}], "basic_auth": ` + tc.auth + `}]}`))
			var e *answerdesk.Error
			if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Field != tc.field {
				t.Fatalf("%s: %v, want one 422 on %s", tc.auth, err, tc.field)
			}
		})
	}
	if _, err := answerdesk.ParseOnCallContactCreate([]byte(`{"account_number": "1001", "name": "Board",
		"delivery_methods": [{"type": "external_api", "url": "https://hooks.example.com/x",
		"data": [{"field": "id", "value": "1"}], "basic_auth": {"username": "acmé user", "password": "s3cret!"}}]}`)); err != nil {
		t.Errorf("a plain username and password: %v", err)
	}
}
