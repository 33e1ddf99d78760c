package rest

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk/content"
	"github.com/go-chi/chi/v5"
)

//go:embed templates/page.html
var templateFS embed.FS

var pageTemplate = template.Must(template.ParseFS(templateFS, "templates/page.html"))

// sectionTitles names the index pages of the sections.
var sectionTitles = map[string]string{
	"services": "Services", "industries": "Industries", "locations": "Locations", "blog": "Blog", "docs": "Documentation",
}

// siteRoutes serves the content pages as HTML and Markdown, llms.txt and the sitemap.
func (s *Server) siteRoutes(r chi.Router) {
	r.Get("/", s.sitePage)
	r.Get("/llms.txt", s.llmsTxt)
	r.Get("/llms-full.txt", s.llmsFullTxt)
	r.Get("/sitemap.xml", s.sitemap)
	r.Get("/{slug}", s.sitePage)
	r.Get("/{section}/{slug}", s.sitePage)
}

type pageView struct {
	SiteName, Title, Summary, Section, MarkdownURL string
	Updated                                        time.Time
	Body                                           template.HTML
	Children                                       []*content.Page
}

// wantsMarkdown reports whether the request asks for Markdown: a .md URL, or an Accept
// header that prefers text/markdown to text/html.
func wantsMarkdown(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/markdown") && !strings.Contains(accept, "text/html")
}

func (s *Server) sitePage(w http.ResponseWriter, r *http.Request) {
	urlPath := r.URL.Path
	asMarkdown := strings.HasSuffix(urlPath, ".md")
	urlPath = strings.TrimSuffix(urlPath, ".md")
	if urlPath == "/index" {
		urlPath = "/"
	}
	w.Header().Add("Vary", "Accept")
	view, page, ok := s.view(urlPath)
	if !ok {
		s.writeErrorObject(w, http.StatusNotFound, codeNoRoute, "no page at "+r.URL.Path, "", nil)
		return
	}
	if asMarkdown || wantsMarkdown(r) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		fmt.Fprint(w, pageMarkdown(view, page))
		return
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, view); err != nil {
		s.Error(w, r, fmt.Errorf("render %s: %w", urlPath, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(buf.Bytes())
}

// view finds the page at a path: a content page, a section index, or the home page.
func (s *Server) view(urlPath string) (pageView, *content.Page, bool) {
	site := s.Site
	name := site.Company.Name
	if p, ok := site.Page(urlPath); ok {
		return pageView{SiteName: name, Title: p.Title, Summary: p.Summary, Section: p.Section, Updated: p.Updated,
			MarkdownURL: p.MarkdownPath(), Body: template.HTML(p.HTML)}, p, true // HTML rendered by goldmark from our own content
	}
	section := strings.TrimPrefix(urlPath, "/")
	title, isSection := sectionTitles[section]
	if urlPath == "/" {
		title, isSection = name, true
		section = ""
	}
	if !isSection {
		return pageView{}, nil, false
	}
	v := pageView{SiteName: name, Title: title, MarkdownURL: urlPath + ".md"}
	if urlPath == "/" {
		v.MarkdownURL = "/index.md"
		v.Summary = site.Company.Description
	}
	for _, p := range site.Pages {
		if (section == "" && p.Section == "" && p.Path != "/") || (section != "" && p.Section == section) {
			v.Children = append(v.Children, p)
		}
	}
	if urlPath == "/" {
		for _, svc := range site.Services {
			v.Children = append(v.Children, svc.Page)
		}
	}
	return v, nil, true
}

// pageMarkdown is a page as Markdown: its title and summary, then its body, or for an
// index page the list of its pages.
func pageMarkdown(v pageView, p *content.Page) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", v.Title)
	if v.Summary != "" {
		fmt.Fprintf(&b, "> %s\n\n", v.Summary)
	}
	if p != nil {
		b.WriteString(p.Markdown)
		return b.String()
	}
	for _, c := range v.Children {
		fmt.Fprintf(&b, "- [%s](%s): %s\n", c.Title, c.MarkdownPath(), c.Summary)
	}
	return b.String()
}

// llmsTxt is the llmstxt.org index: an H1, a summary blockquote, and H2 sections of links
// to the Markdown of every page.
func (s *Server) llmsTxt(w http.ResponseWriter, r *http.Request) {
	site := s.Site
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n> %s\n\n", site.Company.Name, site.Company.Description)
	fmt.Fprintf(&b, "The customer API is described at %s/api/v2/openapi.json. Every page below is Markdown.\n", s.BaseURL)
	groups := []struct{ title, section string }{
		{"Docs", "docs"}, {"Services", "services"}, {"Pages", ""}, {"Industries", "industries"}, {"Locations", "locations"}, {"Blog", "blog"},
	}
	for _, g := range groups {
		header := false
		for _, p := range site.Pages {
			if p.Section != g.section {
				continue
			}
			if !header {
				fmt.Fprintf(&b, "\n## %s\n\n", g.title)
				header = true
			}
			fmt.Fprintf(&b, "- [%s](%s%s): %s\n", p.Title, s.BaseURL, p.MarkdownPath(), p.Summary)
		}
	}
	if len(s.MCP) > 0 {
		b.WriteString("\n## MCP servers\n\nStreamable HTTP; discovery card at " + s.BaseURL + "/.well-known/mcp.\n\n")
		for _, path := range []string{"/mcp/public", "/mcp/docs", "/mcp/account"} {
			if _, ok := s.MCP[path]; ok {
				fmt.Fprintf(&b, "- [%s](%s%s): %s\n", mcpServerInfo[path].name, s.BaseURL, path, mcpServerInfo[path].description)
			}
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, b.String())
}

// llmsFullTxt is every page's Markdown in one file.
func (s *Server) llmsFullTxt(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	for _, p := range s.Site.Pages {
		fmt.Fprintf(w, "# %s\n\nSource: %s%s\n\n%s\n\n", p.Title, s.BaseURL, p.Path, strings.TrimSpace(p.Markdown))
	}
}

func (s *Server) sitemap(w http.ResponseWriter, r *http.Request) {
	type url struct {
		Loc     string `xml:"loc"`
		LastMod string `xml:"lastmod,omitempty"`
	}
	var set struct {
		XMLName xml.Name `xml:"urlset"`
		NS      string   `xml:"xmlns,attr"`
		URLs    []url    `xml:"url"`
	}
	set.NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
	set.URLs = append(set.URLs, url{Loc: s.BaseURL + "/"})
	for _, p := range s.Site.Pages {
		u := url{Loc: s.BaseURL + p.Path}
		if !p.Updated.IsZero() {
			u.LastMod = p.Updated.Format("2006-01-02")
		}
		set.URLs = append(set.URLs, u)
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	fmt.Fprint(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	_ = enc.Encode(set)
}
