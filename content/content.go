// Package content loads the site and documentation pages: Markdown files with YAML front
// matter, embedded in the binary (or read from a directory with --content), rendered to
// HTML once at load, and indexed by path.
package content

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"

	"github.com/answerdesk/answerdesk"
)

//go:embed all:data
var embedded embed.FS

//go:embed all:sandbox
var sandbox embed.FS

// Sandbox returns the fixed test data of the public API sandbox.
func Sandbox() fs.FS {
	sub, err := fs.Sub(sandbox, "sandbox")
	if err != nil {
		panic(err)
	}
	return sub
}

// Embedded returns the content shipped in the binary.
func Embedded() fs.FS {
	sub, err := fs.Sub(embedded, "data")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	return sub
}

// Page types (the domain's, answerdesk.PageTypes).
const (
	TypeService  = answerdesk.PageService
	TypeIndustry = answerdesk.PageIndustry
	TypeLocation = answerdesk.PageLocation
	TypeBlog     = answerdesk.PageBlog
	TypePage     = answerdesk.PagePage
	TypeDocs     = answerdesk.PageDocs
)

// Types lists every page type, the values of the search type filter.
var Types = answerdesk.PageTypes

// sections maps a directory of the content tree to its URL section and page type.
var sections = map[string]struct{ section, typ string }{
	"services":   {"services", TypeService},
	"industries": {"industries", TypeIndustry},
	"locations":  {"locations", TypeLocation},
	"blog":       {"blog", TypeBlog},
	"pages":      {"", TypePage},
	"docs":       {"docs", TypeDocs},
}

// Page is one page of the site or documentation.
type Page struct {
	Path    string // URL path, e.g. /services/live-answering or /pricing
	Slug    string
	Section string // services, industries, locations, blog, docs, or "" for top-level pages
	Type    string
	Title   string
	Summary string
	Author  string
	Updated time.Time
	Order   int
	// Group is the sidebar group of a docs page ("Customer API"); docs pages must have one.
	Group    string
	Markdown string // the body, without front matter
	HTML     string // the body rendered
	// Headings are the body's second- and third-level headings with their anchors, in page
	// order: the page's table of contents.
	Headings []Heading

	meta map[string]any
}

// Heading is a heading of a page's body.
type Heading struct {
	Level int // 2 or 3
	ID    string
	Text  string
}

// MarkdownPath is the URL of the page's Markdown.
func (p *Page) MarkdownPath() string { return p.Path + ".md" }

// Plan is a pricing plan of a service for one billing cycle.
type Plan struct {
	Name            string   `yaml:"name"`
	Price           float64  `yaml:"price"`
	MinutesIncluded *int     `yaml:"minutes_included"`
	ChatsIncluded   *int     `yaml:"chats_included"`
	OverageRate     float64  `yaml:"overage_rate"`
	Features        []string `yaml:"features"`
}

// Service is a service page with its plans by billing cycle ("monthly", "annual").
type Service struct {
	*Page
	Plans map[string][]Plan
}

// Address is a mailing address.
type Address struct {
	Street     string `yaml:"street"`
	City       string `yaml:"city"`
	Region     string `yaml:"region"`
	PostalCode string `yaml:"postal_code"`
	Country    string `yaml:"country"`
}

// SocialProfile is a company profile on a social network.
type SocialProfile struct {
	Network string `yaml:"network"`
	URL     string `yaml:"url"`
}

// Company is the company profile.
type Company struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Tagline is the home page's headline and HowItWorks its steps from call to message.
	Tagline        string          `yaml:"tagline"`
	HowItWorks     []Step          `yaml:"how_it_works"`
	Phone          string          `yaml:"phone"`
	Email          string          `yaml:"email"`
	MailingAddress Address         `yaml:"mailing_address"`
	ServiceArea    []string        `yaml:"service_area"`
	SocialProfiles []SocialProfile `yaml:"social_profiles"`
}

// Step is a step of how the service works, with the page that tells more.
type Step struct {
	Title string `yaml:"title"`
	Text  string `yaml:"text"`
	Link  string `yaml:"link"`
}

// Site is all the content.
type Site struct {
	Pages    []*Page // ordered: docs by order, then by section and title
	Services []*Service
	Company  Company

	byPath map[string]*Page
}

// Page returns the page at a URL path (with or without a trailing ".md").
func (s *Site) Page(urlPath string) (*Page, bool) {
	p, ok := s.byPath[strings.TrimSuffix(urlPath, ".md")]
	return p, ok
}

// Load reads every Markdown file of fsys: company.md and the directories of sections.
func Load(fsys fs.FS) (*Site, error) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	s := &Site{byPath: map[string]*Page{}}
	var errs []error
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(name) != ".md" {
			return err
		}
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		p, err := parsePage(name, raw)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if p.Type == TypeDocs && p.Group == "" {
			errs = append(errs, fmt.Errorf("%s: a docs page needs a group (its sidebar heading)", name))
			return nil
		}
		if err := render(md, p); err != nil {
			errs = append(errs, fmt.Errorf("%s: render: %w", name, err))
			return nil
		}
		if name == "company.md" {
			if err := decodeMeta(p.meta, &s.Company); err != nil {
				errs = append(errs, fmt.Errorf("company.md: %w", err))
			}
		}
		if prev, dup := s.byPath[p.Path]; dup {
			errs = append(errs, fmt.Errorf("%s: path %s is taken by %q", name, p.Path, prev.Title))
			return nil
		}
		s.byPath[p.Path] = p
		s.Pages = append(s.Pages, p)
		if p.Type == TypeService {
			svc := &Service{Page: p}
			var plans struct {
				Plans map[string][]Plan `yaml:"plans"`
			}
			if err := decodeMeta(p.meta, &plans); err != nil {
				errs = append(errs, fmt.Errorf("%s: plans: %w", name, err))
			}
			svc.Plans = plans.Plans
			s.Services = append(s.Services, svc)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load content: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("load content: %w", err)
	}
	slices.SortStableFunc(s.Pages, func(a, b *Page) int {
		if c := strings.Compare(a.Section, b.Section); c != 0 {
			return c
		}
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.Title, b.Title)
	})
	slices.SortStableFunc(s.Services, func(a, b *Service) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.Title, b.Title)
	})
	return s, nil
}

// render sets the page's HTML and headings from its Markdown.
func render(md goldmark.Markdown, p *Page) error {
	src := []byte(p.Markdown)
	pctx := parser.NewContext(parser.WithIDs(newHeadingIDs()))
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(pctx))
	var html bytes.Buffer
	if err := md.Renderer().Render(&html, src, doc); err != nil {
		return err
	}
	// Code blocks and tables scroll sideways when they are wider than the page; a keyboard
	// can scroll only what it can focus.
	p.HTML = strings.NewReplacer("<pre>", `<pre tabindex="0">`, "<table>", `<table tabindex="0">`).Replace(html.String())
	return ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if h.Level == 2 || h.Level == 3 {
			id, _ := h.AttributeString("id")
			idb, _ := id.([]byte)
			p.Headings = append(p.Headings, Heading{Level: h.Level, ID: string(idb), Text: plainText(h, src)})
		}
		return ast.WalkSkipChildren, nil
	})
}

// plainText is the text of a node's inline children, without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// parsePage splits front matter from the body and checks the common fields.
func parsePage(name string, raw []byte) (*Page, error) {
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, fmt.Errorf("%s: no front matter (the file must start with ---)", name)
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return nil, fmt.Errorf("%s: front matter is not closed with ---", name)
	}
	var meta map[string]any
	if err := yaml.Unmarshal([]byte(front), &meta); err != nil {
		return nil, fmt.Errorf("%s: front matter: %w", name, err)
	}
	var fm struct {
		Title   string `yaml:"title"`
		Summary string `yaml:"summary"`
		Type    string `yaml:"type"`
		Updated string `yaml:"updated"`
		Author  string `yaml:"author"`
		Order   int    `yaml:"order"`
		Group   string `yaml:"group"`
	}
	if err := decodeMeta(meta, &fm); err != nil {
		return nil, fmt.Errorf("%s: front matter: %w", name, err)
	}
	body = strings.TrimLeft(body, "\n")
	// The page's title is shown by the template and the Markdown view; a body that opens
	// with its own "# Title" would show it twice.
	if strings.HasPrefix(body, "# ") {
		if _, rest, ok := strings.Cut(body, "\n"); ok {
			body = strings.TrimLeft(rest, "\n")
		} else {
			body = ""
		}
	}
	p := &Page{Title: fm.Title, Summary: fm.Summary, Type: fm.Type, Author: fm.Author, Order: fm.Order, Group: fm.Group,
		Markdown: body, meta: meta}
	dir, file := path.Split(name)
	p.Slug = strings.TrimSuffix(file, ".md")
	if name == "company.md" {
		p.Path, p.Type = "/company", TypePage
	} else {
		sec, ok := sections[strings.TrimSuffix(dir, "/")]
		if !ok {
			return nil, fmt.Errorf("%s: not in a known section directory", name)
		}
		p.Section = sec.section
		if p.Type == "" {
			p.Type = sec.typ
		}
		if p.Section == "" {
			p.Path = "/" + p.Slug
		} else {
			p.Path = "/" + p.Section + "/" + p.Slug
		}
	}
	if p.Title == "" {
		return nil, fmt.Errorf("%s: title is required", name)
	}
	if !slices.Contains(Types, p.Type) {
		return nil, fmt.Errorf("%s: type %q is not one of %v", name, p.Type, Types)
	}
	if fm.Updated != "" {
		// YAML reads an unquoted 2026-11-22 as a timestamp, which comes back in RFC 3339.
		t, err := time.Parse("2006-01-02", fm.Updated)
		if err != nil {
			if t, err = time.Parse(time.RFC3339, fm.Updated); err != nil || !t.Equal(t.Truncate(24*time.Hour)) {
				return nil, fmt.Errorf("%s: updated must be a date YYYY-MM-DD, not %q", name, fm.Updated)
			}
		}
		p.Updated = t
	}
	return p, nil
}

// decodeMeta decodes parsed front matter into a typed struct through YAML.
func decodeMeta(meta map[string]any, v any) error {
	b, err := yaml.Marshal(meta)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(b, v)
}

// headingIDs makes heading anchors: lower case, letters, digits, "_" and "-" kept, spaces
// as "-", the rest dropped, and a numeric suffix for repeats. goldmark's default turns "_"
// into "-", which would break the error codes' anchors (/docs/errors#invalid_parameter).
type headingIDs struct{ seen map[string]bool }

func newHeadingIDs() *headingIDs { return &headingIDs{seen: map[string]bool{}} }

// NewHeadingIDs is the goldmark parser.IDs that Load renders pages with, for packages that
// parse page bodies themselves (search) and must give headings the same anchors.
func NewHeadingIDs() parser.IDs { return newHeadingIDs() }

// HeadingID is the anchor a heading gets, without the suffix added for repeats.
func HeadingID(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}

func (h *headingIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	base := HeadingID(string(value))
	id := base
	for i := 1; h.seen[id]; i++ {
		id = fmt.Sprintf("%s-%d", base, i)
	}
	h.seen[id] = true
	return []byte(id)
}

func (h *headingIDs) Put(value []byte) { h.seen[string(value)] = true }
