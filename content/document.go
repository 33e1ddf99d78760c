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
