package answerdesk

import (
	"slices"
	"testing"
)

func TestSearchTerms(t *testing.T) {
	for _, tc := range []struct {
		q             string
		words, phones []string
	}{
		{"water heater", []string{"water", "heater"}, nil},
		{"Water WATER heater", []string{"water", "heater"}, nil},
		{"+1 555 555 0142", nil, []string{"5555550142"}},
		{"(555) 555-0142 leak", []string{"leak"}, []string{"5555550142"}},
		{"5555550142", nil, []string{"5555550142"}},
		{"555.555.0199/5555550142", nil, []string{"55555501995555550142"}},
		{"room 42 in 2026", []string{"room", "42", "in", "2026"}, nil},
		{`"water" -heater NEAR(x) AND *`, []string{"water", "heater", "near", "x", "and"}, nil},
		{"café dana@mail.example", []string{"café", "dana", "mail", "example"}, nil},
		{"😀 !!! ---", nil, nil},
		{"O'Brien", []string{"o", "brien"}, nil},
	} {
		words, phones := SearchTerms(tc.q)
		if !slices.Equal(words, tc.words) || !slices.Equal(phones, tc.phones) {
			t.Errorf("SearchTerms(%q) = %q, %q; want %q, %q", tc.q, words, phones, tc.words, tc.phones)
		}
	}
}

func TestPhoneDigits(t *testing.T) {
	for in, want := range map[string]string{
		"+1 (555) 555-0142": "5555550142",
		"15555550142":       "5555550142",
		"555.555.0142":      "5555550142",
		"+44 20 7946 0958":  "442079460958",
		" 5550142 ":         "5550142",
	} {
		if got := PhoneDigits(in); got != want {
			t.Errorf("PhoneDigits(%q) = %q, want %q", in, got, want)
		}
	}
}
