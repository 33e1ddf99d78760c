package rest

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/answerdesk/answerdesk/content"
	"github.com/go-chi/chi/v5"

	"github.com/answerdesk/answerdesk"
)

//go:embed templates/page.html templates/keys.html
var templateFS embed.FS

var pageTemplate = template.Must(template.ParseFS(templateFS, "templates/page.html"))

// siteRoutes serves the content pages as HTML and Markdown, llms.txt and the sitemap.
func (s *Server) siteRoutes(r chi.Router) {
	r.Get("/", s.sitePage)
	r.Get("/llms.txt", s.llmsTxt)
	r.Get("/llms-full.txt", s.llmsFullTxt)
	r.Get("/sitemap.xml", s.sitemap)
	r.Get("/search", s.searchPage)
	r.Get("/{slug}", s.sitePage)
	r.Get("/{section}/{slug}", s.sitePage)
}

type pageView struct {
	SiteName    string
	Body        template.HTML
	MarkdownURL string
	*content.Document
}

// wantsMarkdown reports whether the request asks for Markdown: a .md URL, or an Accept
// header that prefers text/markdown to text/html.
func wantsMarkdown(r *http.Request) bool {
	accept := r.Header.Get("Accept")
	return strings.Contains(accept, "text/markdown") && !strings.Contains(accept, "text/html")
}

func (s *Server) sitePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Accept")
	doc, ok := s.Site.Document(r.URL.Path)
	if !ok {
		s.notFound(w, r, "no page at "+answerdesk.Clip(r.URL.Path))
		return
	}
	if strings.HasSuffix(r.URL.Path, ".md") || wantsMarkdown(r) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=300")
		fmt.Fprint(w, doc.Markdown())
		return
	}
	view := pageView{SiteName: s.Site.Company.Name, MarkdownURL: doc.MarkdownPath, Document: doc}
	if doc.Page != nil {
		view.Body = template.HTML(doc.Page.HTML) // rendered by goldmark from our own content
	}
	s.writeSitePage(w, r, http.StatusOK, "public, max-age=300", view)
}

// writeSitePage renders view in the site's page template and writes it with status and
// Cache-Control cache; a template that fails is an internal error, written instead.
func (s *Server) writeSitePage(w http.ResponseWriter, r *http.Request, status int, cache string, view pageView) {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, view); err != nil {
		s.Error(w, r, fmt.Errorf("render %s: %w", r.URL.Path, err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", cache)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
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
