package rest_test

import (
	"encoding/xml"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/rest"
)

func siteServer(t *testing.T) *httptest.Server {
	t.Helper()
	site, err := content.Load(os.DirFS("../content/testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, &rest.Server{Site: site, Logger: quietLogger()})
}

func get(t *testing.T, url string, header ...string) (*http.Response, string) {
	t.Helper()
	resp, b := send(t, "GET", url, nil, header...)
	return resp, string(b)
}

// send makes a request with the header name, value pairs and returns the response and its
// body.
func send(t *testing.T, method, url string, body io.Reader, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestSitePages(t *testing.T) {
	ts := siteServer(t)
	tests := []struct {
		name, path, accept string
		status             int
		contentType, has   string
	}{
		{"service_html", "/services/live-answering", "text/html", 200, "text/html", "<h2 id=\"how-it-works\">How it works</h2>"},
		{"service_markdown", "/services/live-answering.md", "", 200, "text/markdown", "# Live answering\n\n> People answer your calls.\n\n## How it works"},
		{"negotiated_markdown", "/services/live-answering", "text/markdown", 200, "text/markdown", "## How it works"},
		{"docs_page", "/docs/errors", "", 200, "text/html", "invalid_parameter"},
		{"top_level_page", "/pricing", "", 200, "text/html", "Plans start at $49."},
		{"section_index", "/docs", "", 200, "text/html", `href="/docs/errors"`},
		{"section_index_markdown", "/docs.md", "", 200, "text/markdown", "- [Errors](/docs/errors.md): Error codes."},
		{"home", "/", "", 200, "text/html", `href="/services/live-answering"`},
		{"missing_page", "/services/nope", "", 404, "application/json", "rest_no_route"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, ts.URL+tc.path, "Accept", tc.accept)
			if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) || !strings.Contains(body, tc.has) {
				t.Fatalf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if tc.status == 200 && !strings.Contains(resp.Header.Get("Vary"), "Accept") {
				t.Errorf("no Vary: Accept")
			}
		})
	}
	t.Run("only_its_own_assets", func(t *testing.T) {
		resp, body := get(t, ts.URL+"/services/live-answering")
		for _, bad := range []string{"<script>", `src="http`, `href="http`, "@import", "<style", " style="} {
			if strings.Contains(body, bad) {
				t.Errorf("page has inline code or an outside asset: %s", bad)
			}
		}
		assets := regexp.MustCompile(`(?:<script src|<link rel="stylesheet" href)="([^"]+)"`).FindAllStringSubmatch(body, -1)
		if len(assets) != 2 {
			t.Fatalf("assets %v, want the site's stylesheet and script", assets)
		}
		for _, m := range assets {
			a, b := get(t, ts.URL+html.UnescapeString(m[1]))
			if a.StatusCode != 200 || len(b) < 1000 || !strings.Contains(a.Header.Get("Cache-Control"), "immutable") {
				t.Errorf("%s: %d %q, %d bytes", m[1], a.StatusCode, a.Header.Get("Cache-Control"), len(b))
			}
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("Content-Security-Policy %q", csp)
		}
	})
}

func TestLLMsTxtAndSitemap(t *testing.T) {
	ts := siteServer(t)
	_, llms := get(t, ts.URL+"/llms.txt")
	if !strings.HasPrefix(llms, "# Testco\n\n> A test company.\n") || !strings.Contains(llms, "\n## Docs\n\n- [Errors]("+ts.URL+"/docs/errors.md): Error codes.") ||
		!strings.Contains(llms, "## Services\n\n- [Live answering]("+ts.URL+"/services/live-answering.md)") {
		t.Fatalf("llms.txt:\n%s", llms)
	}
	_, full := get(t, ts.URL+"/llms-full.txt")
	if !strings.Contains(full, "# Live answering") || !strings.Contains(full, "Calls are answered by people.") || strings.Contains(full, "plans:") {
		t.Fatalf("llms-full.txt:\n%s", full)
	}
	resp, sm := get(t, ts.URL+"/sitemap.xml")
	var set struct {
		URLs []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(sm), &set); err != nil || resp.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("sitemap: %v\n%s", err, sm)
	}
	found := false
	for _, u := range set.URLs {
		found = found || (u.Loc == ts.URL+"/services/live-answering" && u.LastMod == "2026-03-04")
	}
	if !found || len(set.URLs) != 5 {
		t.Fatalf("sitemap urls %+v", set.URLs)
	}
}

// TestSitePageETag: a page is rendered once and carries an ETag; If-None-Match with it is
// a 304 without a body, and the Markdown of the same path is still Markdown.
func TestSitePageETag(t *testing.T) {
	ts := siteServer(t)
	first, body := get(t, ts.URL+"/docs/errors")
	etag := first.Header.Get("ETag")
	if first.StatusCode != 200 || etag == "" || !strings.Contains(body, "invalid_parameter") {
		t.Fatalf("%d ETag %q", first.StatusCode, etag)
	}
	again, body2 := get(t, ts.URL+"/docs/errors")
	if again.Header.Get("ETag") != etag || body2 != body || again.Header.Get("Content-Security-Policy") != first.Header.Get("Content-Security-Policy") {
		t.Errorf("the second answer differs: ETag %q", again.Header.Get("ETag"))
	}
	cached, rest := get(t, ts.URL+"/docs/errors", "If-None-Match", etag)
	if cached.StatusCode != http.StatusNotModified || rest != "" {
		t.Errorf("If-None-Match: %d, %d bytes", cached.StatusCode, len(rest))
	}
	md, text := get(t, ts.URL+"/docs/errors", "Accept", "text/markdown")
	if !strings.HasPrefix(md.Header.Get("Content-Type"), "text/markdown") || !strings.HasPrefix(text, "# Errors") {
		t.Errorf("Markdown after the page was cached: %s %.40q", md.Header.Get("Content-Type"), text)
	}
	other, _ := get(t, ts.URL+"/pricing")
	if other.Header.Get("ETag") == etag {
		t.Error("two pages share an ETag")
	}
}
