package answerdesk_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// TestRefuseNUL checks the text rule on request bodies: a NUL anywhere in a string (or a
// property name) is a 422 naming where it is, and nothing else is its business.
func TestRefuseNUL(t *testing.T) {
	for _, c := range []struct {
		name, body string
		fields     []string // nil: no error
	}{
		{"plain", `{"content":"hello"}`, nil},
		{"escaped backslash then u0000", `{"content":"a\\u0000"}`, nil},
		{"NUL in a string", `{"content":"a\u0000b"}`, []string{"content"}},
		{"nested", `{"message":{"content":"\u0000","origin":"API"}}`, []string{"message.content"}},
		{"in arrays", `{"schedule":{"times":["09:00","\u0000"]},"delivery_methods":[{"data":[{"field":"a","value":"\u0000"}]}]}`,
			[]string{"delivery_methods[0].data[0].value", "schedule.times[1]"}},
		{"property name", `{"a\u0000":"x"}`, []string{"a\x00"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := answerdesk.RefuseNUL([]byte(c.body))
			if c.fields == nil {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			var e *answerdesk.Error
			if !errors.As(err, &e) || e.Code != answerdesk.EINVALID {
				t.Fatalf("err = %v, want a validation error", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			if !slices.Equal(got, c.fields) {
				t.Fatalf("fields %q, want %q", got, c.fields)
			}
		})
	}
	for s, want := range map[string]bool{"": true, "héllo ☎": true, "a\x00": false, "\xff": false, "a\tb\n": true} {
		if answerdesk.ValidText(s) != want {
			t.Errorf("ValidText(%q) = %v, want %v", s, !want, want)
		}
	}
}
