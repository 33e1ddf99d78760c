package rest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
	"github.com/go-chi/chi/v5"

	"github.com/answerdesk/answerdesk"
)

//go:embed templates/page.html templates/keys.html
var templateFS embed.FS

var pageTemplate = template.Must(template.ParseFS(templateFS, "templates/page.html"))

// siteRoutes serves the content pages as HTML and Markdown, their stylesheet and script,
// the search and ask pages, llms.txt and the sitemap.
func (s *Server) siteRoutes(r chi.Router) {
	r.Get("/", s.sitePage)
	r.Get("/llms.txt", s.llmsTxt)
	r.Get("/llms-full.txt", s.llmsFullTxt)
	r.Get("/sitemap.xml", s.sitemap)
	r.Get("/search", s.searchPage)
	r.Get("/ask", s.askPage)
	r.Get("/assets/{name}", s.asset)
	r.Get("/{slug}", s.sitePage)
	r.Get("/{section}/{slug}", s.sitePage)
}

// pageView is what the page template shows: a Document, and the parts of the layout that
// depend on it (the home page's sections, the docs sidebar and table of contents).
type pageView struct {
	SiteName    string
	Body        template.HTML
	MarkdownURL string
	*content.Document
	Assets assetURLs
	Nav    []navLink
	Query  string    // the search box's text
	Home   *homeView // the home page
	Docs   *docsView // a docs page, the docs index, or the ask page
}

type navLink struct {
	Title, Path string
	Current     bool
}

// siteNav are the header's links.
var siteNav = []navLink{{"Services", "/services", false}, {"Pricing", "/pricing", false}, {"Industries", "/industries", false},
	{"Integrations", "/integrations", false}, {"Blog", "/blog", false}, {"Docs", "/docs", false}}

type docsView struct {
	Groups     []content.DocGroup
	Prev, Next *content.Page
	Headings   []content.Heading
	Answer     *askView // the ask page's answer
}

// MaxQuestion is the ask box's maxlength.
func (docsView) MaxQuestion() int { return search.MaxQuestionLen }

type homeView struct {
	Tagline        string
	Company        content.Company
	Services       []homeService
	Reach          []homeLink
	ReachSummary   string
	Industries     []homeLink
	PricingSummary string
}

type homeService struct {
	*content.Page
	From string // "$49", or "" without plans
}

type homeLink struct{ Text, URL string }

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
	if page, ok := s.renderedPages.Load(r.URL.Path); ok {
		s.writeRendered(w, r, page.(renderedPage))
		return
	}
	view := pageView{MarkdownURL: doc.MarkdownPath, Document: doc}
	if doc.Page != nil {
		view.Body = template.HTML(doc.Page.HTML) // rendered by goldmark from our own content
	}
	switch {
	case doc.Path == "/":
		view.Home = s.homeView()
	case doc.Path == "/docs" || doc.Section == "docs":
		view.Docs = &docsView{Groups: s.Site.DocGroups()}
		if doc.Page != nil {
			view.Docs.Prev, view.Docs.Next = s.Site.DocNeighbours(doc.Page)
			view.Docs.Headings = doc.Page.Headings
		}
	}
	body, err := s.renderSitePage(r, view)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// The content is fixed for the life of the process, so a page is rendered once; the
	// paths kept are those of documents, a bounded set.
	sum := sha256.Sum256(body)
	page := renderedPage{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	s.renderedPages.Store(r.URL.Path, page)
	s.writeRendered(w, r, page)
}

// renderedPage is a site page as rendered, with its ETag.
type renderedPage struct {
	body []byte
	etag string
}

// writeRendered writes a rendered site page, or 304 when the client has it.
func (s *Server) writeRendered(w http.ResponseWriter, r *http.Request, page renderedPage) {
	h := w.Header()
	h.Set("ETag", page.etag)
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Content-Security-Policy", sitePageCSP)
	if etagMatches(r.Header.Get("If-None-Match"), page.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page.body)
}

// homeView is the home page's sections, from the company profile and the pages.
func (s *Server) homeView() *homeView {
	site := s.Site
	h := &homeView{Tagline: cmp.Or(site.Company.Tagline, site.Company.Name), Company: site.Company}
	for _, svc := range site.Services {
		hs := homeService{Page: svc.Page}
		if p, ok := svc.FromPrice("monthly"); ok {
			hs.From = "$" + strconv.FormatFloat(p, 'f', -1, 64)
		}
		h.Services = append(h.Services, hs)
	}
	if p, ok := site.Page("/integrations"); ok {
		h.ReachSummary = p.Summary
		for _, hd := range p.Headings {
			if hd.Level == 2 {
				h.Reach = append(h.Reach, homeLink{Text: hd.Text, URL: p.Path + "#" + hd.ID})
			}
		}
	}
	if p, ok := site.Page("/pricing"); ok {
		h.PricingSummary = p.Summary
	}
	for _, p := range site.Pages {
		if p.Section == "industries" {
			// "Answering Service for Law Firms" is the page's title; the list says who.
			h.Industries = append(h.Industries, homeLink{Text: strings.TrimPrefix(p.Title, "Answering Service for "), URL: p.Path})
		}
	}
	return h
}

// sitePageCSP is the Content-Security-Policy of the site's pages: their stylesheet, script
// and requests are the site's own, and nothing else runs.
const sitePageCSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// writeSitePage renders view in the site's page template and writes it with status and
// Cache-Control cache; a template that fails is an internal error, written instead.
func (s *Server) writeSitePage(w http.ResponseWriter, r *http.Request, status int, cache string, view pageView) {
	body, err := s.renderSitePage(r, view)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", cache)
	w.Header().Set("Content-Security-Policy", sitePageCSP)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// renderSitePage renders view in the site's page template.
func (s *Server) renderSitePage(r *http.Request, view pageView) ([]byte, error) {
	view.SiteName = s.Site.Company.Name
	view.Assets = siteAssets.urls
	view.Nav = make([]navLink, len(siteNav))
	for i, l := range siteNav {
		l.Current = r.URL.Path == l.Path || strings.HasPrefix(r.URL.Path, l.Path+"/") || (l.Path == "/docs" && r.URL.Path == "/ask")
		view.Nav[i] = l
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, view); err != nil {
		return nil, fmt.Errorf("render %s: %w", r.URL.Path, err)
	}
	return buf.Bytes(), nil
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
