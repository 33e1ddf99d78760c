package search

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseMarkdown(t *testing.T) {
	cases := []struct {
		name     string
		md       string
		text     string
		sections []section
	}{
		{
			name:     "syntax stripped",
			md:       "# Title\n\nSome **bold**, _em_, `code <b>` and [a link](/x \"t\") ![alt text](/i.png).\nNext line\\\nhard break &amp; &#65; \\*not em\\*.\n\n- one\n- two\n\n> quoted\n\n```go\nfmt.Println(\"<hi>\")\n```\n\n<div class=\"x\">block <em>html</em></div>\n\ninline <span>tag</span> here. https://example.com/a\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n---\n",
			text:     "Title\nSome bold, em, code <b> and a link alt text. Next line\nhard break & A *not em*.\none\ntwo\nquoted\nfmt.Println(\"<hi>\")\nblock html\ninline tag here. https://example.com/a\na b\n1 2\ndone",
			sections: []section{{text: "Title\nSome bold, em, code <b> and a link alt text. Next line\nhard break & A *not em*.\none\ntwo\nquoted\nfmt.Println(\"<hi>\")\nblock html\ninline tag here. https://example.com/a\na b\n1 2\ndone"}},
		},
		{
			name: "sections",
			md:   "Intro.\n\n## First one\n\nA.\n\n### Sub\n\nB.\n\n## First one\n\nC.\n\n## `code_span` & [link](http://a.b/c)\n\nD.\n\nSetext two\n----------\n\nE.\n\n##\n\nF.\n",
			text: "Intro.\nFirst one\nA.\nSub\nB.\nFirst one\nC.\ncode_span & link\nD.\nSetext two\nE.\nF.",
			sections: []section{
				{text: "Intro."},
				{heading: "First one", anchor: "first-one", text: "A.\nSub\nB."},
				{heading: "First one", anchor: "first-one-1", text: "C."},
				{heading: "code_span & link", anchor: "code_span--linkhttpabc", text: "D."},
				{heading: "Setext two", anchor: "setext-two", text: "E."},
				{heading: "", anchor: "section", text: "F."},
			},
		},
		{name: "empty", md: "", text: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := parseMarkdown(tc.md, "")
			if d.text != tc.text {
				t.Errorf("text\n%q\nwant\n%q", d.text, tc.text)
			}
			for i := range d.sections {
				d.sections[i].units = nil // TestSectionUnits checks them
			}
			if !reflect.DeepEqual(d.sections, tc.sections) {
				t.Errorf("sections\n%#v\nwant\n%#v", d.sections, tc.sections)
			}
		})
	}
}

func TestParseMarkdownNoSyntaxLeft(t *testing.T) {
	d := parseMarkdown("**a** __b__ *c* [d](/e) `f`", "")
	if strings.ContainsAny(d.text, "*_[]()`") {
		t.Fatalf("%q", d.text)
	}
}

func TestParseMarkdownAnchorsFromHTML(t *testing.T) {
	md := "## One\n\n> ## Nested\n\n## Two\n"
	anchors := func(d plainDoc) []string {
		var a []string
		for _, s := range d.sections {
			a = append(a, s.anchor)
		}
		return a
	}
	// The rendered page's ids win, matched in order, nested headings counted.
	d := parseMarkdown(md, `<h2 id="x-one">One</h2><blockquote><h2 id="x-nested">Nested</h2></blockquote><h2 id="x&amp;two">Two</h2>`)
	if got := anchors(d); !reflect.DeepEqual(got, []string{"x-one", "x&two"}) {
		t.Errorf("from HTML: %q", got)
	}
	// HTML that does not line up is ignored.
	d = parseMarkdown(md, `<h2 id="x-one">One</h2>`)
	if got := anchors(d); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Errorf("mismatched HTML: %q", got)
	}
}

func TestEditDistance1(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"receptionist", "receptionist", 0},
		{"recepionist", "receptionist", 1},   // deletion
		{"receptionnist", "receptionist", 1}, // insertion
		{"receptiomist", "receptionist", 1},  // substitution
		{"recieve", "receive", 1},            // transposition
		{"recieve", "receiver", 2},
		{"abc", "cba", 2},
		{"café", "cafe", 1},
		{"", "a", 1},
		{"ab", "ba", 1},
		{"abcd", "badc", 2},
	}
	for _, tc := range cases {
		if got := editDistance1([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("%q %q: %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance1([]rune(tc.b), []rune(tc.a)); got != tc.want {
			t.Errorf("%q %q: %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestVocab(t *testing.T) {
	ix := fixtureIndex(t)
	var got []string
	for _, ty := range ix.pageVocab.typos("recieve") {
		got = append(got, ty.word)
	}
	if !reflect.DeepEqual(got, []string{"receive"}) {
		t.Errorf("typos of recieve: %q", got)
	}
	got = nil
	for _, ty := range ix.pageVocab.typos("calls") {
		got = append(got, fmt.Sprintf("%s %d", ty.word, ty.dist))
	}
	if !reflect.DeepEqual(got, []string{"calls 0", "call 1"}) {
		t.Errorf("typos of calls: %q", got)
	}
	if got := ix.pageVocab.prefixed("body_raw", "answ", 50); !reflect.DeepEqual(got, []string{"answer", "answered", "answering"}) {
		t.Errorf("answ: %q", got)
	}
	if got := ix.pageVocab.prefixed("body_raw", "a", 2); len(got) != 2 || !strings.HasPrefix(got[0], "a") {
		t.Errorf("a, 2: %q", got)
	}
	if got := ix.pageVocab.prefixed("nope", "a", 2); got != nil {
		t.Errorf("unknown field: %q", got)
	}
}

// TestSectionUnits checks the quotable units of a section: sentences of paragraphs (a
// short one kept with the next), list items whole, table rows with their column names,
// a short code block quoted with the sentence introducing it (comment lines and line
// continuations left out), a long one left out, and the "### " heading they are under.
func TestSectionUnits(t *testing.T) {
	md := "## Limits\n\nHTTP 422. The request is refused when `page_size` is over 200. See [Pagination](/docs/pagination) for more.\n\n" +
		"Run this:\n\n```sh\n# the demo\ncurl \\\n  x\n```\n\nOr this:\n\n```json\n" + strings.Repeat("{\"a\": 1}\n", 20) + "```\n\n### Per list\n\n| List | Default | Maximum |\n|---|---|---|\n| `messages` | 50 | 200 |\n\n" +
		"- one item, e.g. a thing. Still the item.\n- two\n  - nested\n"
	d := parseMarkdown(md, "")
	if len(d.sections) != 1 {
		t.Fatalf("%d sections", len(d.sections))
	}
	want := []unitSrc{
		{text: "HTTP 422. The request is refused when `page_size` is over 200.", kind: kindSentence},
		{text: "See Pagination for more.", kind: kindSentence},
		{text: "Run this: `curl x`", kind: kindSentence},
		{text: "Or this.", kind: kindSentence},
		{text: "`messages` — Default: 50; Maximum: 200", kind: kindRow, sub: "Per list List Default Maximum"},
		{text: "one item, e.g. a thing. Still the item.", kind: kindItem, sub: "Per list"},
		{text: "two", kind: kindItem, sub: "Per list"},
		{text: "nested", kind: kindItem, sub: "Per list"},
	}
	if got := d.sections[0].units; !reflect.DeepEqual(got, want) {
		t.Errorf("units\n%#v\nwant\n%#v", got, want)
	}
}
