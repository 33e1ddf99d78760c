package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/answerdesk/answerdesk/content"
)

// buildIndex builds the index of pages, closed when the test or benchmark ends.
func buildIndex(tb testing.TB, pages []*content.Page) *Index {
	tb.Helper()
	ix, err := Build(pages)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ix.Close() })
	return ix
}

// fixtureSite loads search/testdata/site through content.Load, as the server loads content.
func fixtureSite(t testing.TB) *content.Site {
	t.Helper()
	site, err := content.Load(os.DirFS("testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	return site
}

func fixtureIndex(t testing.TB) *Index {
	t.Helper()
	ix := buildIndex(t, fixtureSite(t).Pages)
	return ix
}

func urls(p *Page) []string {
	var out []string
	for _, r := range p.Results {
		out = append(out, r.URL)
	}
	return out
}

func TestSearch(t *testing.T) {
	ix := fixtureIndex(t)
	cases := []struct {
		name    string
		q       Query
		first   string   // the best result, if set
		want    []string // results that must be present
		notWant []string // results that must be absent
		only    bool     // want is the whole result list (any order)
	}{
		{name: "exact word", q: Query{Q: "plumber"}, want: []string{"/industries/plumbing"}},
		{name: "stemmed word", q: Query{Q: "plumbers emergency"}, first: "/industries/plumbing", only: true, want: []string{"/industries/plumbing"}},
		{name: "typo", q: Query{Q: "recepionist"}, want: []string{"/services/ai-receptionist", "/services/live-answering"}},
		{name: "typo in title word", q: Query{Q: "Recepsionist"}, first: "/services/ai-receptionist"},
		{name: "typo per word", q: Query{Q: "portlnd receptionsts"}, first: "/locations/portland", only: true, want: []string{"/locations/portland"}},
		{name: "transposed letters", q: Query{Q: "recieve webhooks"}, only: true, want: []string{"/docs/getting-started"}},
		{name: "two typos in a word", q: Query{Q: "recpeionist"}, want: nil, only: true},
		{name: "no typo in short words", q: Query{Q: "cat"}, notWant: []string{"/services/web-chat"}},
		{name: "prefix of last word", q: Query{Q: "answ"}, first: "/services/live-answering",
			want: []string{"/services/live-answering", "/industries/plumbing", "/about", "/industries/law-firms"}},
		{name: "prefix with earlier words", q: Query{Q: "law firm cli"}, first: "/industries/law-firms", only: true, want: []string{"/industries/law-firms"}},
		{name: "prefix only for the last word", q: Query{Q: "answ calls"}, want: nil, only: true},
		{name: "every word must match", q: Query{Q: "portland plumbing"}, want: nil, only: true},
		{name: "title outranks body", q: Query{Q: "scheduling"}, first: "/services/appointment-scheduling",
			want: []string{"/blog/calendar-tips"}},
		{name: "title outranks body (ai)", q: Query{Q: "receptionist"}, first: "/services/ai-receptionist"},
		{name: "type filter", q: Query{Q: "receptionist", Type: content.TypeService},
			want: []string{"/services/ai-receptionist", "/services/live-answering"}, notWant: []string{"/locations/portland"}},
		{name: "type filter location", q: Query{Q: "receptionist", Type: content.TypeLocation},
			only: true, want: []string{"/locations/portland"}},
		{name: "type filter docs: its sections", q: Query{Q: "calls", Type: content.TypeDocs},
			only: true, want: []string{"/docs/getting-started#forward-your-calls", "/docs/getting-started"}},
		{name: "code span text", q: Query{Q: "*72"}, want: []string{"/docs/getting-started"}},
		{name: "link destination is not text", q: Query{Q: "docs api webhooks"}, want: nil, only: true},
		{name: "raw html tags are not text", q: Query{Q: "div class note"}, want: nil, only: true},
		{name: "raw html block text is", q: Query{Q: "stripped tags"}, only: true, want: []string{"/blog/escaping"}},
		{name: "stop words ignored", q: Query{Q: "the plumbing of"}, want: []string{"/industries/plumbing"}},
		{name: "query syntax is text", q: Query{Q: `title:plumbing +emergency -burst "dispatch" plumb* ~2 ^3 (a OR b) /re/`},
			want: nil, only: true},
		{name: "field syntax is text", q: Query{Q: "type:docs"}, want: nil, only: true},
		{name: "only punctuation", q: Query{Q: "?!*"}, want: nil, only: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ix.Search(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := urls(p)
			if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
				t.Errorf("first result: got %v, want %s first", got, tc.first)
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("got %v, want %s among them", got, w)
				}
			}
			for _, w := range tc.notWant {
				if slices.Contains(got, w) {
					t.Errorf("got %v, want no %s", got, w)
				}
			}
			if tc.only && len(got) != len(tc.want) {
				t.Errorf("got %v, want exactly %v", got, tc.want)
			}
			for _, r := range p.Results {
				if tc.q.Type != "" && r.Type != tc.q.Type {
					t.Errorf("%s has type %s, filter %s", r.URL, r.Type, tc.q.Type)
				}
			}
			if p.NextCursor != "" {
				t.Errorf("next cursor %q for one page of results", p.NextCursor)
			}
		})
	}
}

func TestResultFields(t *testing.T) {
	ix := fixtureIndex(t)
	p, err := ix.Search(context.Background(), Query{Q: "web chat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Results) == 0 {
		t.Fatal("no results")
	}
	r := p.Results[0]
	want := Result{Title: "Web Chat", Summary: "Live agents chat with visitors on your website.",
		URL: "/services/web-chat", MarkdownURL: "/services/web-chat.md", Type: content.TypeService,
		Updated: time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC)}
	r.Highlight, want.Highlight = "", ""
	if r != want {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
}

func TestHighlight(t *testing.T) {
	ix := fixtureIndex(t)
	cases := []struct {
		q        string
		url      string
		contains []string
	}{
		{"forwarding", "/docs/getting-started", []string{"<mark>forwarding</mark>"}},
		{"recepionist", "/services/ai-receptionist", []string{"<mark>receptionist</mark>"}},
		{"answ", "/services/live-answering", []string{"<mark>answer</mark>"}},
		{"appointments", "/services/appointment-scheduling", []string{"<mark>appointment</mark>"}},
		// HTML in the content is escaped; only the marks are markup.
		{"script", "/blog/escaping", []string{"&lt;<mark>script</mark>&gt;alert(&#34;xss&#34;)&lt;/<mark>script</mark>&gt;"}},
		{"jerry", "/blog/escaping", []string{"Tom &amp; <mark>Jerry</mark> &lt;3"}},
		{"safety", "/blog/escaping", []string{"Markup &amp; &lt;b&gt;<mark>Safety</mark>&lt;/b&gt;"}},
	}
	for _, tc := range cases {
		t.Run(tc.q, func(t *testing.T) {
			p, err := ix.Search(context.Background(), Query{Q: tc.q})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(p.Results, func(r Result) bool { return r.URL == tc.url })
			if i < 0 {
				t.Fatalf("%s not in %v", tc.url, urls(p))
			}
			h := p.Results[i].Highlight
			for _, c := range tc.contains {
				if !strings.Contains(h, c) {
					t.Errorf("highlight %q lacks %q", h, c)
				}
			}
			rest := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(h)
			if strings.ContainsAny(rest, "<>") {
				t.Errorf("highlight %q has unescaped markup", h)
			}
		})
	}
}

// corpus is n pages that all match "answering", with identical text so that every score
// ties and only the path orders them.
func corpus(n int, typ string) []*content.Page {
	var pages []*content.Page
	for i := range n {
		pages = append(pages, &content.Page{
			Path: fmt.Sprintf("/blog/post-%03d", i), Type: typ, Title: fmt.Sprintf("Post %d", i),
			Summary:  "A post.",
			Markdown: "Notes on answering calls.\n\n## Answering\n\nMore about answering.",
		})
	}
	// Some with a better match, to mix scores.
	for i := 0; i < n; i += 7 {
		pages[i].Title = fmt.Sprintf("Answering tips %d", i)
	}
	return pages
}

func TestCursorPaging(t *testing.T) {
	pages := corpus(97, content.TypeBlog)
	pages = append(pages, &content.Page{Path: "/services/x", Type: content.TypeService, Title: "Answering X", Markdown: "answering"})
	ix := buildIndex(t, pages)
	ctx := context.Background()
	for _, limit := range []int{1, 7, 10, 50} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			seen := map[string]bool{}
			var order []string
			q := Query{Q: "answering", Limit: limit, Type: content.TypeBlog}
			for range 200 {
				p, err := ix.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.Results {
					if seen[r.URL] {
						t.Fatalf("%s repeated", r.URL)
					}
					seen[r.URL] = true
					order = append(order, r.URL)
				}
				if p.NextCursor == "" {
					break
				}
				if len(p.Results) != limit {
					t.Fatalf("short page (%d) with a next cursor", len(p.Results))
				}
				q.Cursor = p.NextCursor
			}
			if len(seen) != 97 {
				t.Fatalf("saw %d results, want 97", len(seen))
			}
			// The title matches first, then the rest; ties by path.
			var want []string
			for i := 0; i < 97; i += 7 {
				want = append(want, pages[i].Path)
			}
			for i := range 97 {
				if i%7 != 0 {
					want = append(want, pages[i].Path)
				}
			}
			if !slices.Equal(order, want) {
				t.Fatalf("order\n%v\nwant\n%v", order, want)
			}
		})
	}
}

func TestCursorErrors(t *testing.T) {
	pages := corpus(30, content.TypeBlog)
	ix := buildIndex(t, pages)
	ctx := context.Background()
	q := Query{Q: "answering", Limit: 10}
	p, err := ix.Search(ctx, q)
	if err != nil || p.NextCursor == "" {
		t.Fatalf("%v %+v", err, p)
	}
	cur := p.NextCursor

	// The same cursor works again (stable), with the same query up to blanks.
	for _, qq := range []string{"answering", "  answering "} {
		p2, err := ix.Search(ctx, Query{Q: qq, Limit: 10, Cursor: cur})
		if err != nil || len(p2.Results) != 10 || p2.Results[0].URL == p.Results[0].URL {
			t.Fatalf("reuse with %q: %v %v", qq, err, p2)
		}
	}
	// A rebuilt index over the same content (a restart) takes it.
	ix2 := buildIndex(t, corpus(30, content.TypeBlog))
	if _, err := ix2.Search(ctx, Query{Q: "answering", Limit: 10, Cursor: cur}); err != nil {
		t.Fatalf("same content, new index: %v", err)
	}
	// Other content refuses it.
	other := corpus(30, content.TypeBlog)
	other[3].Summary = "changed"
	ix3 := buildIndex(t, other)
	if _, err := ix3.Search(ctx, Query{Q: "answering", Limit: 10, Cursor: cur}); !errors.Is(err, ErrBadCursor) {
		t.Fatalf("changed content: %v", err)
	}

	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	bad := []struct {
		name string
		q    Query
	}{
		{"another query", Query{Q: "answering calls", Limit: 10, Cursor: cur}},
		{"another type", Query{Q: "answering", Limit: 10, Type: content.TypeBlog, Cursor: cur}},
		{"another limit", Query{Q: "answering", Limit: 20, Cursor: cur}},
		{"default limit is 10", Query{Q: "answering", Cursor: cur}}, // valid: listed below as ok
		{"tampered first byte", Query{Q: "answering", Limit: 10, Cursor: flip(cur, 0)}},
		{"tampered offset", Query{Q: "answering", Limit: 10, Cursor: flip(cur, 2)}},
		{"tampered mac", Query{Q: "answering", Limit: 10, Cursor: flip(cur, len(cur)-3)}},
		{"truncated", Query{Q: "answering", Limit: 10, Cursor: cur[:len(cur)-2]}},
		{"extended", Query{Q: "answering", Limit: 10, Cursor: cur + "AA"}},
		{"not base64", Query{Q: "answering", Limit: 10, Cursor: "!!!"}},
		{"padding", Query{Q: "answering", Limit: 10, Cursor: cur + "="}},
		{"long", Query{Q: "answering", Limit: 10, Cursor: strings.Repeat("A", 5000)}},
		{"empty payload", Query{Q: "answering", Limit: 10, Cursor: "AQ"}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ix.Search(ctx, tc.q)
			if tc.name == "default limit is 10" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("got %v, want ErrBadCursor", err)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	ix := fixtureIndex(t)
	cases := []struct {
		q    Query
		want error
	}{
		{Query{Q: ""}, ErrEmptyQuery},
		{Query{Q: " \t\n "}, ErrEmptyQuery},
		{Query{Q: "x", Limit: -1}, ErrBadLimit},
		{Query{Q: "x", Limit: 51}, ErrBadLimit},
		{Query{Q: "x", Type: "poem"}, ErrBadType},
		{Query{Q: "x", Type: "Docs"}, ErrBadType},
	}
	for _, tc := range cases {
		if _, err := ix.Search(context.Background(), tc.q); !errors.Is(err, tc.want) {
			t.Errorf("%+v: got %v, want %v", tc.q, err, tc.want)
		}
	}
	if _, err := ix.Passages(context.Background(), "  ", 5); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("passages, blank: %v", err)
	}
	if _, err := ix.Passages(context.Background(), "calls", 51); !errors.Is(err, ErrBadLimit) {
		t.Errorf("passages, limit 51: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Search(ctx, Query{Q: "answering"}); err == nil {
		t.Errorf("cancelled context: no error")
	}
}

func TestArbitraryInput(t *testing.T) {
	ix := fixtureIndex(t)
	inputs := []string{
		"\xff\xfe invalid utf-8 \xc3",
		strings.Repeat("answering ", 1000),
		strings.Repeat("a", 10000),
		"日本語 のテキスト",
		"émergency plombier",
		`\u0000 \x00 NUL`,
		"a",
		"the",
		"+-&&||!(){}[]^\"~*?:\\/",
		"<script>alert(1)</script>",
		"%00%2F..%2F",
	}
	for _, in := range inputs {
		p, err := ix.Search(context.Background(), Query{Q: in, Limit: 50})
		if err != nil {
			t.Errorf("%.40q: %v", in, err)
			continue
		}
		for _, r := range p.Results {
			rest := strings.NewReplacer("<mark>", "", "</mark>", "").Replace(r.Highlight)
			if strings.ContainsAny(rest, "<>") {
				t.Errorf("%.40q: highlight %q", in, r.Highlight)
			}
		}
		if _, err := ix.Passages(context.Background(), in, 50); err != nil {
			t.Errorf("passages %.40q: %v", in, err)
		}
	}
}

func TestPassages(t *testing.T) {
	ix := fixtureIndex(t)
	cases := []struct {
		question string
		url      string // the best passage
		heading  string
	}{
		{"How do I forward my calls?", "/docs/getting-started#forward-your-calls", "Forward your calls"},
		{"forwarding when busy", "/docs/getting-started#forward-your-calls", "Forward your calls"},
		{"what is included in a plan", "/docs/getting-started#whats-included", "What's included?"},
		{"webhooks for messages", "/docs/getting-started#api--webhooks-the-messages-endpoint", "API & webhooks: the messages endpoint"},
		{"billing invoices", "/docs/getting-started#faqs-1", "FAQs"},
		{"onboarding questions", "/docs/getting-started#faqs", "FAQs"},
		{"call_forwarding settings", "/docs/getting-started#call_forwarding-settings", "call_forwarding settings"},
		{"cafe hours", "/docs/getting-started#café-hours--247", "Café hours — 24/7"},
		{"what does rest_invalid_param mean", "/docs/errors#invalid_parameter", "invalid_parameter"},
		{"too many requests, retry after how long?", "/docs/errors#rate_limited", "rate_limited"},
		{"sign-up guide", "/docs/getting-started", ""},
		{"recieve webhoks", "/docs/getting-started#api--webhooks-the-messages-endpoint", "API & webhooks: the messages endpoint"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			ps, err := ix.Passages(context.Background(), tc.question, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) == 0 {
				t.Fatal("no passages")
			}
			if len(ps) > 3 {
				t.Fatalf("%d passages, limit 3", len(ps))
			}
			p := ps[0]
			if p.URL != tc.url || p.Heading != tc.heading {
				t.Fatalf("best passage %q %q, want %q %q (all: %+v)", p.URL, p.Heading, tc.url, tc.heading, ps)
			}
			if p.PageTitle == "" || p.Text == "" || p.Score <= 0 {
				t.Fatalf("passage %+v", p)
			}
			for i := 1; i < len(ps); i++ {
				if ps[i].Score > ps[i-1].Score {
					t.Fatalf("not best first: %+v", ps)
				}
			}
		})
	}
	// Only docs pages have passages.
	ps, err := ix.Passages(context.Background(), "receptionist plumbing portland", 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if !strings.HasPrefix(p.URL, "/docs/") {
			t.Errorf("passage of a non-docs page: %+v", p)
		}
	}
	// Stop words only: nothing to look for.
	if ps, err := ix.Passages(context.Background(), "what is it?", 5); err != nil || len(ps) != 0 {
		t.Errorf("stop words: %v %+v", err, ps)
	}
}

// TestPassageAnchors checks every passage anchor is the id of its heading in the page as
// content renders it.
func TestPassageAnchors(t *testing.T) {
	site := fixtureSite(t)
	ix := buildIndex(t, site.Pages)
	n := 0
	for url, p := range ix.byID {
		path, anchor, ok := strings.Cut(url, "#")
		page, found := site.Page(path)
		if !found || page.Type != content.TypeDocs || page.Title != p.PageTitle {
			t.Errorf("%s: page %v", url, page)
			continue
		}
		if !ok {
			continue
		}
		n++
		if !strings.Contains(page.HTML, `<h2 id="`+anchor+`">`) {
			t.Errorf("%s: no <h2 id=%q> in the rendered page", url, anchor)
		}
	}
	if n != 9 {
		t.Errorf("%d passages with anchors, want 9", n)
	}
	p := ix.byID["/docs/getting-started#forward-your-calls"]
	if p == nil || p.Text != "Use your carrier's call forwarding to send calls to the number in your dashboard. Most carriers use *72 followed by the number.\nConditional forwarding\nForward only when busy or unanswered." {
		t.Errorf("passage text %+v", p)
	}
	if p := ix.byID["/docs/getting-started"]; p == nil || p.Heading != "" || !strings.HasPrefix(p.Text, "Welcome!") {
		t.Errorf("introduction %+v", p)
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build([]*content.Page{{Path: "/a", Title: "A"}, {Path: "/a", Title: "B"}}); err == nil {
		t.Error("duplicate paths: no error")
	}
	if _, err := Build([]*content.Page{nil}); err == nil {
		t.Error("nil page: no error")
	}
	ix := buildIndex(t, nil)
	if p, err := ix.Search(context.Background(), Query{Q: "anything"}); err != nil || len(p.Results) != 0 {
		t.Fatalf("empty index: %v %+v", err, p)
	}
}

// TestBM25 checks the index scores with BM25 (its explanation has the saturation and field
// length terms), and that bleve.NewMemOnly, which the package avoids, would not.
func TestBM25(t *testing.T) {
	ix := fixtureIndex(t)
	explain := func(idx bleve.Index) string {
		q := query.NewTermQuery("receptionist")
		q.SetField("body")
		req := bleve.NewSearchRequest(q)
		req.Explain = true
		res, err := idx.Search(req)
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("%v %v", err, res)
		}
		return res.Hits[0].Expl.String()
	}
	if e := explain(ix.pages); !strings.Contains(e, "saturation") || !strings.Contains(e, "avgFieldLength") {
		t.Errorf("not BM25:\n%s", e)
	}
	m, err := newMapping(pageFields, nil)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := bleve.NewMemOnly(m)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.Index("/x", map[string]any{"body": "a receptionist answers"}); err != nil {
		t.Fatal(err)
	}
	if e := explain(mem); strings.Contains(e, "saturation") {
		t.Logf("bleve.NewMemOnly now scores BM25 too; newMemIndex could use it:\n%s", e)
	}
}

// TestEmbeddedContent builds the index over the shipped content and checks the passage
// anchors are the rendered pages' heading ids. The start-up budget is BenchmarkBuild's to measure, not a timed test's.
func TestEmbeddedContent(t *testing.T) {
	site, err := content.Load(content.Embedded())
	if err != nil {
		t.Fatalf("shipped content does not load: %v", err)
	}
	start := time.Now()
	ix := buildIndex(t, site.Pages)
	t.Logf("%d pages, %d passages: built in %v", len(site.Pages), len(ix.byID), time.Since(start))
	for url := range ix.byID {
		path, anchor, ok := strings.Cut(url, "#")
		page, _ := site.Page(path)
		if ok && (page == nil || !strings.Contains(page.HTML, `id="`+anchor+`"`)) {
			t.Errorf("%s: no such heading id in the rendered page", url)
		}
	}
	if p, err := ix.Search(context.Background(), Query{Q: "receptionist"}); err != nil || len(p.Results) == 0 {
		t.Errorf("receptionist: %v %+v", err, p)
	}
}

func TestFirstChars(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"電話応対", 2, "電話"},
		{strings.Repeat("電", 1000) + " retry", 1000, strings.Repeat("電", 1000)},
		{strings.Repeat("電", 400) + " retry", maxQueryChars, strings.Repeat("電", 400) + " retry"}, // 1,206 bytes: kept whole
	} {
		if got := firstChars(tc.in, tc.n); got != tc.want {
			t.Errorf("firstChars(%.20q, %d) = %.20q (%d bytes), want %d bytes", tc.in, tc.n, got, len(got), len(tc.want))
		}
	}
}
