package content_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// TestDocsNameEveryMessageField checks the two docs lists of the message's fields against
// the Message type, whose fields are the API's (and the table's columns): a field added to
// the type without its line in the docs fails here, not in a reader's integration.
func TestDocsNameEveryMessageField(t *testing.T) {
	want := answerdesk.MessageFields()
	for _, tc := range []struct {
		page, heading string
		ordered       bool // listed in the type's order
	}{
		{"messages.md", "The message object", false},
		{"merge-variables.md", "Message fields you can use", true},
	} {
		got := fieldNames(t, tc.page, tc.heading)
		var missing, extra []string
		for _, f := range want {
			if !slices.Contains(got, f) {
				missing = append(missing, f)
			}
		}
		seen := map[string]bool{}
		for _, f := range got {
			if !slices.Contains(want, f) || seen[f] {
				extra = append(extra, f)
			}
			seen[f] = true
		}
		switch {
		case len(missing) > 0 || len(extra) > 0:
			t.Errorf("%s, %q: the Message type's fields %v are missing; %v are not its fields or are named twice", tc.page, tc.heading, missing, extra)
		case tc.ordered && !slices.Equal(got, want):
			t.Errorf("%s, %q lists the fields in another order than the Message type:\n%v\nwant\n%v", tc.page, tc.heading, got, want)
		}
	}
}

var codeSpan = regexp.MustCompile("`([a-z][a-z0-9_]*)`")

// fieldNames is the code spans that look like field names in the first paragraph or table
// of a docs page's section: in a table, the first such span of each cell that lists fields.
func fieldNames(t *testing.T, page, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("data/docs/" + page)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", page, heading)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var names []string
	for _, line := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(line, "| "):
			// | Type | `a`, `b` (never null) |: the fields cell; `answers`: its note
			cells := strings.Split(line, "|")
			if len(cells) < 3 {
				continue
			}
			list, _, _ := strings.Cut(cells[2], ":")
			for _, m := range codeSpan.FindAllStringSubmatch(list, -1) {
				names = append(names, m[1])
			}
		case strings.HasPrefix(line, "`{{message.<field>}}` accepts"):
			_, list, _ := strings.Cut(line, ":")
			for _, m := range codeSpan.FindAllStringSubmatch(list, -1) {
				names = append(names, m[1])
			}
		}
	}
	return names
}
