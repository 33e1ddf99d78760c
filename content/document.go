package content

import (
	"fmt"
	"strings"
	"time"
)

// sectionTitles names the index pages of the sections.
var sectionTitles = map[string]string{
	"services": "Services", "industries": "Industries", "locations": "Locations", "blog": "Blog", "docs": "Documentation",
}

// Document is what a URL path of the site shows: a page, a section's index, or the home
// page (the company and its pages). The site's HTML and Markdown and the MCP read_page tool
// all show the same Document.
type Document struct {
	Path         string
	MarkdownPath string
	Title        string
	Summary      string
	Section      string
	Updated      time.Time
	Page         *Page   // nil for an index
	Children     []*Page // the pages an index lists
}

// Document returns what the URL path (with or without ".md"; "/index" is the home page)
// shows, or false when it shows nothing.
func (s *Site) Document(urlPath string) (*Document, bool) {
	urlPath = strings.TrimSuffix(urlPath, ".md")
	if urlPath == "/index" {
		urlPath = "/"
	}
	if p, ok := s.Page(urlPath); ok {
		return &Document{Path: p.Path, MarkdownPath: p.MarkdownPath(), Title: p.Title, Summary: p.Summary,
			Section: p.Section, Updated: p.Updated, Page: p}, true
	}
	section := strings.TrimPrefix(urlPath, "/")
	title, isSection := sectionTitles[section]
	d := &Document{Path: urlPath, MarkdownPath: urlPath + ".md", Title: title}
	if urlPath == "/" {
		isSection, section = true, ""
		d.Title, d.Summary, d.MarkdownPath = s.Company.Name, s.Company.Description, "/index.md"
	}
	if !isSection {
		return nil, false
	}
	for _, p := range s.Pages {
		if (section == "" && p.Section == "" && p.Path != "/") || (section != "" && p.Section == section) {
			d.Children = append(d.Children, p)
		}
	}
	if urlPath == "/" {
		for _, svc := range s.Services {
			d.Children = append(d.Children, svc.Page)
		}
	}
	return d, true
}

// Markdown is the document as Markdown: its title and summary, then the page's body or
// the index's list of pages.
func (d *Document) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", d.Title)
	if d.Summary != "" {
		fmt.Fprintf(&b, "> %s\n\n", d.Summary)
	}
	if d.Page != nil {
		b.WriteString(d.Page.Markdown)
		return b.String()
	}
	for _, c := range d.Children {
		fmt.Fprintf(&b, "- [%s](%s): %s\n", c.Title, c.MarkdownPath(), c.Summary)
	}
	return b.String()
}

// DocGroup is a group of the documentation's sidebar.
type DocGroup struct {
	Title string
	Pages []*Page
}

// DocGroups are the documentation pages in their sidebar groups: groups in the order of
// their first page, pages in site order.
func (s *Site) DocGroups() []DocGroup {
	var out []DocGroup
	at := map[string]int{}
	for _, p := range s.Pages {
		if p.Type != TypeDocs || p.Section != "docs" {
			continue
		}
		i, ok := at[p.Group]
		if !ok {
			i = len(out)
			at[p.Group] = i
			out = append(out, DocGroup{Title: p.Group})
		}
		out[i].Pages = append(out[i].Pages, p)
	}
	return out
}

// DocNeighbours are the documentation pages before and after p in sidebar order (nil at
// either end, and both nil when p is not a docs page).
func (s *Site) DocNeighbours(p *Page) (prev, next *Page) {
	var order []*Page
	for _, g := range s.DocGroups() {
		order = append(order, g.Pages...)
	}
	for i, q := range order {
		if q != p {
			continue
		}
		if i > 0 {
			prev = order[i-1]
		}
		if i+1 < len(order) {
			next = order[i+1]
		}
	}
	return prev, next
}

// FromPrice is the lowest price of the service's plans for a billing cycle, and false when
// it has none.
func (s *Service) FromPrice(cycle string) (float64, bool) {
	plans := s.Plans[cycle]
	if len(plans) == 0 {
		return 0, false
	}
	low := plans[0].Price
	for _, p := range plans[1:] {
		low = min(low, p.Price)
	}
	return low, true
}
