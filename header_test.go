package answerdesk_test

import (
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
