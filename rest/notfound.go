package rest

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
)

// Site paths that miss are pages for people: a browser (Accept: text/html) gets an HTML 404
// with a search box and pages that match the words of the path; programs and every API
// path keep the JSON error object.

// searchBody is the body of the 404 and search pages: a search form and the results.
var searchBody *template.Template

func init() {
	// Highlights come from the search index with everything but <mark> escaped.
	searchBody = template.Must(template.New("search").Funcs(template.FuncMap{
		"html_": func(s string) template.HTML { return template.HTML(s) }, //nolint:gosec // escaped by search
	}).Parse(searchBodyText))
}

const searchBodyText = `{{if .Missed}}<p>There is no page at <code>{{.Missed}}</code>. Search the site and the documentation:</p>{{end}}
<form class="search page-search" action="/search" method="get" role="search" aria-label="Search this site">
<input type="search" name="q" value="{{.Query}}" placeholder="Search pages and docs" aria-label="Search pages and docs">
<button type="submit">Search</button>
</form>
{{if .Results}}<ul class="pages">{{range .Results}}<li><a href="{{.URL}}">{{.Title}}</a>{{with .Highlight}}<br><span class="meta">{{html_ .}}</span>{{else}}{{with .Summary}} — {{.}}{{end}}{{end}}</li>{{end}}</ul>
{{with .More}}<p><a href="{{.}}" rel="next">More results</a></p>{{end}}
{{else if .Query}}<p>Nothing matches <strong>{{.Query}}</strong>.</p>{{end}}
<p>Or start from <a href="/">the home page</a>, <a href="/services">our services</a> or <a href="/docs">the documentation</a>.</p>`

// apiPrefixes are paths for programs: a miss there is always the JSON error object.
var apiPrefixes = []string{"/api/", "/mcp", "/oauth/", "/.well-known/", "/recordings/", "/healthz", "/readyz", "/metrics"}

// wantsHTMLPage reports whether a miss on the request's path should be an HTML page.
func (s *Server) wantsHTMLPage(r *http.Request) bool {
	if s.Site == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	for _, p := range apiPrefixes {
		if strings.HasPrefix(r.URL.Path, p) || r.URL.Path == strings.TrimSuffix(p, "/") {
			return false
		}
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// notFound answers a path no route or page serves: a redirect when only a trailing slash is
// wrong (/docs/ is /docs), an HTML page for a browser on a site path, else the JSON error.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, message string) {
	if s.Site != nil && len(r.URL.Path) > 1 && strings.HasSuffix(r.URL.Path, "/") && !strings.HasPrefix(r.URL.Path, "/api/") {
		if doc, ok := s.Site.Document(strings.TrimRight(r.URL.Path, "/")); ok {
			http.Redirect(w, r, doc.Path, http.StatusMovedPermanently)
			return
		}
	}
	if s.Site != nil && w.Header().Get("Vary") == "" {
		w.Header().Add("Vary", "Accept") // HTML for browsers, JSON for programs
	}
	if !s.wantsHTMLPage(r) {
		s.writeErrorObject(w, http.StatusNotFound, codeNoRoute, message, "", nil)
		return
	}
	// The words of the path's last segment are the likeliest search: /services/live-answerin
	// finds Live answering (the section word would narrow the search to nothing).
	last := strings.TrimSuffix(r.URL.Path[strings.LastIndex(strings.TrimRight(r.URL.Path, "/"), "/")+1:], ".md")
	words := strings.FieldsFunc(last, func(c rune) bool { return c == '/' || c == '-' || c == '_' || c == '.' })
	s.renderSearchPage(w, r, http.StatusNotFound, "Page not found", r.URL.Path, strings.Join(words, " "), false)
}

// searchPage is GET /search?q=: the site search for people, as an HTML page.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request) {
	s.renderSearchPage(w, r, http.StatusOK, "Search", "", strings.TrimSpace(r.URL.Query().Get("q")), true)
}

// searchPageSize is how many results the search page shows at a time.
const searchPageSize = 10

// renderSearchPage renders the search form and the results of query in the page template.
// showQuery puts the query in the search box (the 404 page leaves it for the visitor).
func (s *Server) renderSearchPage(w http.ResponseWriter, r *http.Request, status int, title, missed, query string, showQuery bool) {
	data := struct {
		Missed, Query string
		Results       []search.Result
		More          string // the URL of the next results, "" on the last
	}{Missed: missed}
	if showQuery {
		data.Query = query
	}
	if s.Search != nil && query != "" {
		// The search page's results are the site search's (a bad or stale cursor starts
		// again from the first results).
		q := search.Query{Q: query, Limit: searchPageSize}
		if showQuery {
			q.Cursor = r.URL.Query().Get("cursor")
		}
		page, err := s.Search.Search(r.Context(), q)
		if err != nil && q.Cursor != "" {
			q.Cursor = ""
			page, err = s.Search.Search(r.Context(), q)
		}
		if err == nil {
			data.Results = page.Results
			if showQuery && page.NextCursor != "" {
				data.More = "/search?" + url.Values{"q": {query}, "cursor": {page.NextCursor}}.Encode()
			}
		}
	}
	var body bytes.Buffer
	if err := searchBody.Execute(&body, data); err != nil {
		s.Error(w, r, fmt.Errorf("render search page: %w", err))
		return
	}
	view := pageView{Body: template.HTML(body.String()), //nolint:gosec // rendered above by html/template
		Document: &content.Document{Path: r.URL.Path, Title: title}, Query: data.Query}
	s.writeSitePage(w, r, status, "no-store", view)
}
