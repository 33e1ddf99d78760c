package content

import (
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"
)

// TestDocsNavigation checks the shipped docs' sidebar, neighbours and tables of contents,
// and that every link of the home page's steps leads to a page.
func TestDocsNavigation(t *testing.T) {
	site, err := Load(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	groups := site.DocGroups()
	var order []*Page
	for _, g := range groups {
		if g.Title == "" || len(g.Pages) == 0 {
			t.Errorf("group %+v", g)
		}
		order = append(order, g.Pages...)
	}
	if len(groups) != 5 || order[0].Path != "/docs/getting-started" {
		t.Fatalf("%d groups, first page %s", len(groups), order[0].Path)
	}
	orders := map[int]string{}
	for i, p := range order {
		if other, dup := orders[p.Order]; dup {
			t.Errorf("%s and %s share order %d: the sidebar would fall back to their titles", other, p.Path, p.Order)
		}
		orders[p.Order] = p.Path
		prev, next := site.DocNeighbours(p)
		if (i == 0) != (prev == nil) || (i == len(order)-1) != (next == nil) || (prev != nil && prev != order[i-1]) || (next != nil && next != order[i+1]) {
			t.Errorf("%s: prev %v next %v", p.Path, prev, next)
		}
		if len(p.Headings) == 0 {
			t.Errorf("%s has no table of contents", p.Path)
		}
		for _, h := range p.Headings {
			if h.ID == "" || h.Text == "" || !strings.Contains(p.HTML, `id="`+h.ID+`"`) {
				t.Errorf("%s: heading %+v has no anchor in the page", p.Path, h)
			}
		}
	}
	if len(site.Company.HowItWorks) == 0 {
		t.Fatal("company.md has no how_it_works steps")
	}
	for _, s := range site.Company.HowItWorks {
		if _, ok := site.Document(s.Link); !ok || s.Title == "" || s.Text == "" {
			t.Errorf("step %+v: its link leads to no page", s)
		}
	}
}

func TestHeadingsPlainText(t *testing.T) {
	md := goldmark.New(goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	p := &Page{Markdown: "## The `page_size` *parameter*\n\ntext\n\n### Errors: 422\n\n#### deeper\n"}
	if err := render(md, p); err != nil {
		t.Fatal(err)
	}
	want := []Heading{{2, "the-page_size-parameter", "The page_size parameter"}, {3, "errors-422", "Errors: 422"}}
	if !slices.Equal(p.Headings, want) {
		t.Errorf("headings %+v, want %+v", p.Headings, want)
	}
}
