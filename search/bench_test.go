package search

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/content"
)

// domainWords are the frequent words of the generated corpus, so that queries like the
// real ones have many matches.
var domainWords = strings.Fields(`call calls answering answer answered receptionist receptionists
	message messages service services business customer customers appointment appointments
	schedule scheduling calendar forward forwarding phone number numbers dispatch emergency
	plumbing plumber hvac law firm legal intake medical practice property management
	pricing plan plans minutes overage recording recordings transcript chat website visitor
	lead leads sms email text dashboard api webhook integration account team hours after
	holiday weekend urgent routine script greeting caller callers transfer escalation
	on-call schedule billing invoice support agent agents voice ai virtual live local office`)

// vocabulary is domainWords and made-up words, Zipf-distributed in the text.
func vocabulary(r *rand.Rand, n int) []string {
	syl := strings.Fields("ka ro mi ten sul vor pa li ne do gra bel ton fi mar cus zen lo pri ta qu est ion ver sa no")
	seen := map[string]bool{}
	words := slices.Clone(domainWords)
	for _, w := range words {
		seen[w] = true
	}
	for len(words) < n {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// generate is n pages of about 400 words of Markdown with "## " sections.
func generate(n int) []*content.Page {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := vocabulary(r, 20000)
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ")
	}
	sections := map[string]string{content.TypeService: "services", content.TypeIndustry: "industries",
		content.TypeLocation: "locations", content.TypeBlog: "blog", content.TypePage: "", content.TypeDocs: "docs"}
	pages := make([]*content.Page, n)
	for i := range pages {
		typ := content.Types[i%len(content.Types)]
		var md strings.Builder
		fmt.Fprintf(&md, "%s.\n\n", words(40))
		for s := range 3 + r.IntN(4) {
			fmt.Fprintf(&md, "## %s %d\n\n%s. **%s** [%s](/x).\n\n%s.\n\n", words(3), s, words(40), words(2), words(3), words(30))
		}
		path := fmt.Sprintf("/%s/page-%05d", sections[typ], i)
		if sections[typ] == "" {
			path = fmt.Sprintf("/page-%05d", i)
		}
		pages[i] = &content.Page{Path: path, Type: typ, Title: words(3 + r.IntN(3)), Summary: words(15),
			Markdown: md.String(), Updated: time.Date(2026, 1, 1+i%28, 0, 0, 0, 0, time.UTC)}
	}
	return pages
}

var (
	genMu    sync.Mutex
	genCache = map[int][]*content.Page{}
)

func generated(n int) []*content.Page {
	genMu.Lock()
	defer genMu.Unlock()
	if p, ok := genCache[n]; ok {
		return p
	}
	genCache[n] = generate(n)
	return genCache[n]
}

// fixtureQueries are what visitors type on the shipped-size site: whole words, typos,
// half-typed words, several words, a type filter.
var fixtureQueries = []Query{
	{Q: "answ"}, {Q: "recepionist"}, {Q: "scheduling"}, {Q: "portland receptionists"},
	{Q: "calls"}, {Q: "forward calls"}, {Q: "emergency plumber"}, {Q: "web ch"},
	{Q: "law firm intake"}, {Q: "a"}, {Q: "re"}, {Q: "receptionist", Type: content.TypeService},
	{Q: "how do I forward my calls after hours"}, {Q: "pricing plans", Limit: 50},
}

// generatedQueries mix frequent and rare words, typos and prefixes (2 to 5 characters).
var generatedQueries = []Query{
	{Q: "answering"}, {Q: "recepionist"}, {Q: "an"}, {Q: "rec"}, {Q: "sched"}, {Q: "call forwarding"},
	{Q: "emergency plumb"}, {Q: "law firm intake"}, {Q: "calls", Type: content.TypeDocs},
	{Q: "appointment calendar sc"}, {Q: "messages", Limit: 50}, {Q: "kamiro"}, {Q: "tensul vorpa"},
	{Q: "disptach"}, {Q: "ka"}, {Q: "customer support hours after holiday weekend"},
	{Q: "how do I forward my calls after hours"}, {Q: "phone numbers loc"},
}

// settle collects the garbage of building an index (a 10,000-page build allocates GBs, and
// Bleve's segment builder parks its buffers in a sync.Pool, freed on the second collection),
// so the search timings are of searching, not of the collector catching up.
func settle() {
	runtime.GC()
	runtime.GC()
}

// benchLatency settles the heap, then runs op once per iteration (i counts them) and reports
// its allocations and the percentiles of its durations.
func benchLatency(b *testing.B, op func(i int) error) {
	settle()
	d := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	reportLatency(b, d)
}

// reportLatency reports the median and 99th percentile of per-operation durations.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	pct := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
	b.ReportMetric(float64(pct(0.50))/1e6, "p50-ms")
	b.ReportMetric(float64(pct(0.99))/1e6, "p99-ms")
	b.ReportMetric(float64(d[len(d)-1])/1e6, "max-ms")
}

func benchSearch(b *testing.B, pages []*content.Page, queries []Query) {
	ix := buildIndex(b, pages)
	ctx := context.Background()
	// Follow a cursor too, as a client paging would.
	var qs []Query
	for _, q := range queries {
		qs = append(qs, q)
		p, err := ix.Search(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		if p.NextCursor != "" {
			q.Cursor = p.NextCursor
			qs = append(qs, q)
		}
	}
	benchLatency(b, func(i int) error {
		_, err := ix.Search(ctx, qs[i%len(qs)])
		return err
	})
}

// shipped is the content in the binary; benchmarks skip it while it does not load.
func shipped(b *testing.B) []*content.Page {
	site, err := content.Load(content.Embedded())
	if err != nil {
		b.Skipf("shipped content does not load: %v", err)
	}
	return site.Pages
}

func BenchmarkSearch(b *testing.B) {
	b.Run("fixtures", func(b *testing.B) { benchSearch(b, fixtureSite(b).Pages, fixtureQueries) })
	b.Run("shipped", func(b *testing.B) { benchSearch(b, shipped(b), fixtureQueries) })
	b.Run("pages=100", func(b *testing.B) { benchSearch(b, generated(100), generatedQueries) })
	b.Run("pages=10000", func(b *testing.B) { benchSearch(b, generated(10000), generatedQueries) })
}

func BenchmarkPassages(b *testing.B) {
	questions := []string{"How do I forward my calls after hours?", "what is an overage minute", "recepionist schedule",
		"kamiro tensul vorpa", "api webhook integration account"}
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			ix := buildIndex(b, generated(n))
			benchLatency(b, func(i int) error {
				_, err := ix.Passages(context.Background(), questions[i%len(questions)], 5)
				return err
			})
		})
	}
}

// BenchmarkSearchDocs is a public API docs search (type=docs) on the shipped docs: the
// sections ranked as searchDocumentation ranks them, to a fixed depth, one page of 10.
func BenchmarkSearchDocs(b *testing.B) {
	ix := buildIndex(b, shipped(b))
	queries := []string{"webhook retry", "how do I paginate messages", "rate limit", "idempotency-ke", "kamiro tensul"}
	benchLatency(b, func(i int) error {
		_, err := ix.Search(context.Background(), Query{Q: queries[i%len(queries)], Type: content.TypeDocs})
		return err
	})
}

func BenchmarkBuild(b *testing.B) {
	for _, c := range []struct {
		name  string
		pages func() []*content.Page
	}{
		{"fixtures", func() []*content.Page { return fixtureSite(b).Pages }},
		{"shipped", func() []*content.Page { return shipped(b) }},
		{"pages=100", func() []*content.Page { return generated(100) }},
		{"pages=10000", func() []*content.Page { return generated(10000) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			pages := c.pages()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ix, err := Build(pages)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = ix.Close()
				b.StartTimer()
			}
		})
	}
}

// TestGeneratedCorpus keeps the benchmark corpus honest: it loads, and its queries match.
func TestGeneratedCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 300-page index")
	}
	ix := buildIndex(t, generate(300))
	for _, q := range generatedQueries {
		p, err := ix.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Results) == 0 && !strings.Contains(q.Q, "how do") && !strings.Contains(q.Q, "support hours") {
			t.Errorf("%+v: no results", q)
		}
	}
}

// BenchmarkAnswer is the extractive answer on the shipped documentation (the target is a
// p99 of 10 ms): the evaluation questions of both halves, the off-topic ones included, in
// turn.
func BenchmarkAnswer(b *testing.B) {
	ix := buildIndex(b, shipped(b))
	var questions []string
	for _, name := range []string{"tune.json", "test.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "qa", name))
		if err != nil {
			b.Fatal(err)
		}
		var qs []struct {
			Question string `json:"question"`
		}
		if err := json.Unmarshal(raw, &qs); err != nil {
			b.Fatal(err)
		}
		for _, q := range qs {
			questions = append(questions, q.Question)
		}
	}
	benchLatency(b, func(i int) error {
		_, err := ix.Answer(context.Background(), questions[i%len(questions)])
		return err
	})
}
