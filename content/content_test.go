package content_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/answerdesk/answerdesk/content"
)

func TestLoad(t *testing.T) {
	s, err := content.Load(os.DirFS("testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Company.Name != "Testco" || s.Company.MailingAddress.PostalCode != "97201" || len(s.Company.SocialProfiles) != 1 {
		t.Fatalf("company %+v", s.Company)
	}
	if len(s.Services) != 1 {
		t.Fatalf("%d services", len(s.Services))
	}
	svc := s.Services[0]
	if svc.Path != "/services/live-answering" || svc.Plans["monthly"][0].Price != 49 || *svc.Plans["annual"][0].MinutesIncluded != 50 {
		t.Fatalf("service %+v plans %+v", svc.Page, svc.Plans)
	}
	for path, title := range map[string]string{"/docs/errors": "Errors", "/pricing": "Pricing", "/company": "About Testco", "/docs/errors.md": "Errors"} {
		p, ok := s.Page(path)
		if !ok || p.Title != title {
			t.Errorf("page %s: %v %v", path, p, ok)
		}
	}
	p, _ := s.Page("/docs/errors")
	if !strings.Contains(p.HTML, `<h2 id="invalid_parameter">invalid_parameter</h2>`) || p.Updated.Format("2006-01-02") != "2026-11-22" || p.Type != "docs" {
		t.Fatalf("docs page %+v", p)
	}
	if strings.Contains(p.Markdown, "title:") {
		t.Fatal("front matter left in the body")
	}
}

func TestLoadRejectsBadPages(t *testing.T) {
	cases := map[string]string{
		"services/x.md":  "no front matter",
		"blog/y.md":      "---\ntitle: Y\n",
		"docs/z.md":      "---\nsummary: no title\n---\nbody",
		"pages/t.md":     "---\ntitle: T\ntype: poem\n---\nbody",
		"pages/d.md":     "---\ntitle: D\nupdated: yesterday\n---\nbody",
		"elsewhere/e.md": "---\ntitle: E\n---\nbody",
	}
	for name, body := range cases {
		_, err := content.Load(fstest.MapFS{name: {Data: []byte(body)}})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v should name the file", name, err)
		}
	}
}

// TestEmbeddedContent checks the shipped content loads and has what the public API and the
// contract promise.
func TestEmbeddedContent(t *testing.T) {
	s, err := content.Load(content.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	if s.Company.Name == "" {
		t.Error("company.md has no name")
	}
	count := map[string]int{}
	for _, p := range s.Pages {
		count[p.Type]++
		if p.Summary == "" {
			t.Errorf("%s has no summary", p.Path)
		}
	}
	for typ, min := range map[string]int{"service": 6, "industry": 15, "location": 20, "blog": 20, "docs": 10} {
		if count[typ] < min {
			t.Errorf("%d %s pages, want at least %d", count[typ], typ, min)
		}
	}
	for _, svc := range s.Services {
		for _, cycle := range []string{"monthly", "annual"} {
			if len(svc.Plans[cycle]) == 0 {
				t.Errorf("%s has no %s plans", svc.Path, cycle)
			}
		}
	}
}

func TestLeadingTitleIsNotRepeated(t *testing.T) {
	s, err := content.Load(fstest.MapFS{"blog/x.md": {Data: []byte("---\ntitle: X post\n---\n\n# X post\n\nBody text.\n")}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Page("/blog/x")
	if p.Markdown != "Body text.\n" || strings.Contains(p.HTML, "<h1") {
		t.Fatalf("markdown %q html %q", p.Markdown, p.HTML)
	}
}

func TestDocument(t *testing.T) {
	s, err := content.Load(os.DirFS("testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, title, markdown string
		children              int
		page                  bool
	}{
		{"/services/live-answering.md", "Live answering", "# Live answering\n\n> People answer your calls.\n\n## How it works", 0, true},
		{"/docs", "Documentation", "# Documentation\n\n- [Errors](/docs/errors.md): Error codes.\n", 1, false},
		{"/index.md", "Testco", "# Testco\n\n> A test company.\n\n", 3, false}, // company, pricing, and the service
	}
	for _, tc := range tests {
		d, ok := s.Document(tc.path)
		if !ok || d.Title != tc.title || (d.Page != nil) != tc.page || len(d.Children) != tc.children || !strings.HasPrefix(d.Markdown(), tc.markdown) {
			t.Errorf("%s: %+v %v\n%s", tc.path, d, ok, d.Markdown())
		}
	}
	for _, missing := range []string{"/nope", "/services/nope", "/docs/errors/x"} {
		if _, ok := s.Document(missing); ok {
			t.Errorf("%s is a document", missing)
		}
	}
}
