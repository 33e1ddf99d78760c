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

// TestDocsDescribeEveryField holds the docs' field-by-field tables of the API's objects to
// their Go types: one row a field, in the type's order, whose meaning is the field's schema
// description (the MCP output schemas' and the OpenAPI documents'), so the three say the
// same thing and a field added to a type fails here until the docs name it.
func TestDocsDescribeEveryField(t *testing.T) {
	for _, tc := range []struct {
		typ           reflect.Type
		page, heading string
	}{
		{reflect.TypeFor[answerdesk.CallRecording](), "call-recordings.md", "The call recording object"},
		{reflect.TypeFor[answerdesk.CDR](), "call-recordings.md", "The call detail record (cdr)"},
	} {
		var want [][2]string
		for i := range tc.typ.NumField() {
			f := tc.typ.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "-" {
				want = append(want, [2]string{name, f.Tag.Get("jsonschema")})
			}
		}
		var got [][2]string
		for _, row := range tableRows(t, tc.page, tc.heading) {
			if len(row) != 3 {
				t.Fatalf("%s, %q, row %q: want the cells field, type, meaning", tc.page, tc.heading, row)
			}
			got = append(got, [2]string{strings.Trim(row[0], "`"), strings.ReplaceAll(row[2], "`", "")})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s, %q does not match the %s type's fields and descriptions:\n%q\nwant\n%q", tc.page, tc.heading, tc.typ.Name(), got, want)
		}
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
