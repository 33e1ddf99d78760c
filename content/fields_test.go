package content_test

import (
	"os"
	"reflect"
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
	var names []string
	for _, line := range strings.Split(section(t, page, heading), "\n") {
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

// TestDocsDescribeEveryCDRField holds the call detail record's table in the docs to the CDR
// type: one row a field, in the type's order, whose meaning is the field's schema description
// (the MCP output schema's and the OpenAPI document's), so the three say the same thing.
func TestDocsDescribeEveryCDRField(t *testing.T) {
	typ := reflect.TypeFor[answerdesk.CDR]()
	var want [][2]string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		want = append(want, [2]string{name, f.Tag.Get("jsonschema")})
	}
	var got [][2]string
	for _, row := range tableRows(t, "call-recordings.md", "The call detail record (cdr)") {
		if len(row) != 3 {
			t.Fatalf("row %q: want the cells field, type, meaning", row)
		}
		got = append(got, [2]string{strings.Trim(row[0], "`"), strings.ReplaceAll(row[2], "`", "")})
	}
	if !slices.Equal(got, want) {
		t.Errorf("call-recordings.md's cdr table does not match the CDR type's fields and descriptions:\n%q\nwant\n%q", got, want)
	}
}

// section is the text of a docs page's section, up to the next section of its level.
func section(t *testing.T, page, heading string) string {
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
	return sec
}

// tableRows is the body rows of the table in a docs page's section, as trimmed cells.
func tableRows(t *testing.T, page, heading string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(section(t, page, heading), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		t.Fatalf("%s, %q has no table", page, heading)
	}
	return rows[1:] // after the header (the |---| line does not start with "| ")
}
