package answerdesk

import "testing"

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1", 1, true},
		{"42", 42, true},
		{"007", 7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"0", 0, false},
		{"", 0, false},
		{"+5", 0, false},
		{"-5", 0, false},
		{" 5", 0, false},
		{"5 ", 0, false},
		{"5e0", 0, false},
		{"0x10", 0, false},
		{"1_000", 0, false},
	} {
		got, ok := ParseID(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ParseID(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
