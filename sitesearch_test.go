package answerdesk_test

import (
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// TestParseSearch: the site search rule counts characters, not bytes, and takes the page
// types as documented (lower case).
func TestParseSearch(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		name  string
		in    answerdesk.SearchInput
		field string // "" when accepted
	}{
		{"words_default_limit", answerdesk.SearchInput{Query: " after hours "}, ""},
		{"200_two_byte_characters", answerdesk.SearchInput{Query: strings.Repeat("é", 200)}, ""},
		{"201_characters", answerdesk.SearchInput{Query: strings.Repeat("é", 201)}, "query"},
		{"blank", answerdesk.SearchInput{Query: " \t"}, "query"},
		{"limit_0", answerdesk.SearchInput{Query: "x", Limit: n(0)}, "limit"},
		{"limit_50", answerdesk.SearchInput{Query: "x", Limit: n(50)}, ""},
		{"limit_51", answerdesk.SearchInput{Query: "x", Limit: n(51)}, "limit"},
		{"cursor_too_long", answerdesk.SearchInput{Query: "x", Cursor: strings.Repeat("c", 65)}, "cursor"},
		{"type_docs", answerdesk.SearchInput{Query: "x", Type: "docs"}, ""},
		{"type_Docs", answerdesk.SearchInput{Query: "x", Type: "Docs"}, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := answerdesk.ParseSearch(tc.in)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got.Query != strings.TrimSpace(tc.in.Query) || got.Limit < 1 {
					t.Errorf("parsed %+v", got)
				}
				return
			}
			e, ok := err.(*answerdesk.Error)
			if !ok || e.Code != answerdesk.EINVALID || len(e.Fields) != 1 || e.Fields[0].Field != tc.field {
				t.Errorf("error %v, want EINVALID on %s", err, tc.field)
			}
		})
	}
}
