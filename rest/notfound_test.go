package rest_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/rest"
)

func TestSiteNotFoundIsAPage(t *testing.T) {
	site, index := indexedSite(t, os.DirFS("../content/testdata/site"))
	ts := serve(t, &rest.Server{Site: site, Search: index, Logger: quietLogger()})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tc := range []struct {
		name, path, accept string
		status             int
		contentType, has   string
	}{
		{"browser_on_missing_page_gets_html_with_search", "/services/nope", browser, 404, "text/html", `<form class="search page-search" action="/search"`},
		{"browser_on_unrouted_site_path", "/no/such/deep/path", browser, 404, "text/html", "There is no page at <code>/no/such/deep/path</code>"},
		{"suggests_pages_matching_the_path", "/services/live-answerin", browser, 404, "text/html", `href="/services/live-answering"`},
		{"program_keeps_json", "/services/nope", "application/json", 404, "application/json", "rest_no_route"},
		{"no_accept_keeps_json", "/services/nope", "", 404, "application/json", "rest_no_route"},
		{"api_path_keeps_json_for_a_browser", "/api/v2/nope", browser, 404, "application/json", "rest_no_route"},
		{"mcp_path_keeps_json_for_a_browser", "/mcp/nope", browser, 404, "application/json", "rest_no_route"},
		{"search_page", "/search?q=answering", browser, 200, "text/html", `href="/services/live-answering"`},
		{"search_page_escapes_the_query", "/search?q=%3Cscript%3Ezz", browser, 200, "text/html", "&lt;script&gt;zz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, ts.URL+tc.path, "Accept", tc.accept)
			if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) || !strings.Contains(body, tc.has) {
				t.Fatalf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if strings.Contains(body, "<script>") {
				t.Fatalf("unescaped input in the page:\n%s", body)
			}
		})
	}
	t.Run("trailing_slash_redirects_to_the_page", func(t *testing.T) {
		req, _ := http.NewRequest("GET", ts.URL+"/docs/", nil)
		req.Header.Set("Accept", browser)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/docs" {
			t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
}
