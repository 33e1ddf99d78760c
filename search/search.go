// Package search is the full-text index over the site and documentation pages: a Bleve
// index (BM25 scoring) of every page for site search, and of every documentation section
// ("passage") for documentation search and question answering.
//
// Queries are built programmatically from the words of the user's text (never parsed as
// Bleve query-string syntax). In site search every word must match, in the title (boosted),
// summary or body: as its stem, or as an indexed word one typo away (an insertion,
// deletion, substitution or swap of neighbours; words of four characters or more); the last
// word also matches the indexed words it begins (search as you type). Results are ordered
// by score, then path, paged with opaque cursors bound to the query, and carry a snippet
// with the matched words in <mark>. Passage search takes any of the words; a site search of
// type docs returns passages (see searchDocs).
//
// An Index is built once, in memory, from the loaded content, and is read-only after.
package search

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/highlight"
	htmlformat "github.com/blevesearch/bleve/v2/search/highlight/format/html"
	simplefragmenter "github.com/blevesearch/bleve/v2/search/highlight/fragmenter/simple"
	simplehighlighter "github.com/blevesearch/bleve/v2/search/highlight/highlighter/simple"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
)

// Limits of a query.
const (
	DefaultLimit = answerdesk.DefaultSearchLimit // results per page when Query.Limit is 0
	MaxLimit     = answerdesk.MaxSearchLimit

	DefaultPassages = 5 // passages when Passages is asked for 0

	maxQueryChars = 1000  // characters of a query beyond these are ignored: the longest question the MCP tools take
	maxWords      = 32    // words of a query beyond these are ignored
	fuzzyMin      = 4     // words of at least this many characters tolerate one typo
	prefixMin     = 2     // the last word matches as a prefix from this many characters
	maxExpansions = 50    // words a prefix matches per field, at most (the most frequent)
	maxOffset     = 10000 // deepest result a cursor can reach
	fragmentSize  = 160   // characters of a highlight
	twoPassDocs   = 64    // pages from which highlights are found in a second pass
)

// Errors of a query: bad parameters, named by the domain's search rule (query, limit,
// type, cursor), each with what to do about it. REST's public API and the MCP tools answer
// them as they are, each naming the parameter in its own way.
var (
	ErrEmptyQuery = answerdesk.ParamErr("query", "has no words to search for", `Pass one or more words, e.g. "call recordings retention".`)
	ErrBadLimit   = answerdesk.ParamErr("limit", fmt.Sprintf("must be an integer from 1 to %d", MaxLimit), "")
	ErrBadType    = answerdesk.ParamErr("type", "must be one of "+strings.Join(content.Types, ", "), "")
	ErrBadCursor  = answerdesk.ParamErr("cursor", "is not a cursor of this search (changed, from another query, type or limit, or from before the content changed)",
		"Start again without cursor from the first page, or pass the next cursor of the previous result unchanged with the same query, type and limit.")
)

// Query is a site search.
type Query struct {
	Q      string // the user's text
	Limit  int    // 1..MaxLimit, 0 for DefaultLimit
	Cursor string // NextCursor of the previous page, "" for the first
	Type   string // one of content.Types, "" for all
}

// Result is a matching page.
type Result struct {
	Title       string
	Summary     string
	URL         string // the page's path
	MarkdownURL string // the path of its Markdown
	Type        string
	Updated     time.Time
	// Highlight is a snippet of the page with the matched words in <mark>…</mark>;
	// everything else is HTML-escaped.
	Highlight string
}

// Page is a page of results.
type Page struct {
	Results    []Result
	NextCursor string // "" when there are no more results
}

// Passage is a section of a documentation page: the text under one "## " heading, or, with
// an empty Heading, the page's introduction before the first one.
type Passage struct {
	PageTitle string
	Heading   string
	URL       string // path#anchor, the anchor being the heading's id in the rendered page
	Text      string // plain text, Markdown syntax stripped
	Score     float64
	// Snippet is the part of the section that best matches the question: its best
	// sentence, list item or table row and the ones after it, as written.
	Snippet string
	bm25    float64 // the retrieval score; Score is the reranked one
}

// Index is a Bleve index over content pages and their passages. It is read-only once
// built and safe for concurrent use.
type Index struct {
	pages                   bleve.Index
	passages                bleve.Index
	byPath                  map[string]*pageEntry
	byID                    map[string]*Passage
	words                   analysis.Analyzer // splits and lower-cases: the analyzer of the *_raw fields
	stems                   analysis.Analyzer // English stemming, stop words removed
	hl                      *simplehighlighter.Highlighter
	pageVocab, passageVocab *vocab
	docs                    int // pages
	cursorKey               []byte
	ans                     *answerer // the docs sections, for questions
}

type pageEntry struct {
	page                 *content.Page
	title, summary, body string // as indexed: valid UTF-8, the body as plain text
}

// field is a text field indexed twice: stemmed (for word matches) and as plain lower-cased
// words (for typo and prefix matches, which are not analyzed and must not meet stems).
type field struct {
	name  string
	boost float64
}

func (f field) raw() string { return f.name + "_raw" }

var (
	pageFields    = []field{{"title", 5}, {"summary", 2}, {"body", 1}}
	passageFields = []field{{"heading", 3}, {"page_title", 2}, {"text", 1}}
	// partsField holds the words of a passage text's snake_case and CamelCase names
	// (compoundParts). It is queried apart from passageFields (see partsPassages): a field
	// inside each word's clause would change every passage's score through Bleve's
	// coordination factor, and a score lifted by a name's parts lifts off-topic questions
	// too ("port my phone number" by `phone_id`).
	partsField = field{"parts", 1}
)

// Relative weights of a word's exact (stem), typo and prefix matches.
const (
	exactBoost  = 1.0
	fuzzyBoost  = 0.6 // times 1/(1+edits)
	prefixBoost = 0.4
)

const wordsAnalyzer = "words"

// Build indexes every page (title boosted, summary, body text, type as a keyword, updated)
// and the passages of every docs page, in memory.
func Build(pages []*content.Page) (*Index, error) {
	sorted := slices.Clone(pages)
	slices.SortFunc(sorted, func(a, b *content.Page) int { return strings.Compare(a.Path, b.Path) })
	for i, p := range sorted {
		if p == nil {
			return nil, errors.New("search: nil page")
		}
		if i > 0 && sorted[i-1].Path == p.Path {
			return nil, fmt.Errorf("search: two pages at %s", p.Path)
		}
	}

	ix := &Index{byPath: map[string]*pageEntry{}, byID: map[string]*Passage{}, docs: len(sorted)}
	ix.cursorKey = cursorKey(contentHash(sorted))
	// Highlights: Bleve's simple highlighter with its HTML fragment formatter configured to
	// wrap matches in <mark>…</mark> (it HTML-escapes the rest of the text).
	ix.hl = simplehighlighter.NewHighlighter(
		wordFragmenter{simplefragmenter.NewFragmenter(fragmentSize)},
		htmlformat.NewFragmentFormatter("<mark>", "</mark>"), "…")

	pm, err := newMapping(pageFields, func(dm *mapping.DocumentMapping) {
		kw := bleve.NewKeywordFieldMapping()
		kw.Store, kw.IncludeInAll, kw.IncludeTermVectors, kw.DocValues = false, false, false, false
		dm.AddFieldMappingsAt("type", kw)
		dt := bleve.NewDateTimeFieldMapping()
		dt.Store, dt.IncludeInAll = false, false
		dm.AddFieldMappingsAt("updated", dt)
	})
	if err != nil {
		return nil, err
	}
	qm, err := newMapping(append(slices.Clone(passageFields), partsField), nil)
	if err != nil {
		return nil, err
	}
	ok := false
	if ix.pages, err = newMemIndex(pm); err != nil {
		return nil, err
	}
	defer func() {
		if !ok {
			_ = ix.Close()
		}
	}()
	if ix.passages, err = newMemIndex(qm); err != nil {
		return nil, err
	}
	ix.words = pm.AnalyzerNamed(wordsAnalyzer)
	ix.stems = pm.AnalyzerNamed(en.AnalyzerName)
	if ix.words == nil || ix.stems == nil {
		return nil, errors.New("search: analyzers missing")
	}

	pb, qb := ix.pages.NewBatch(), ix.passages.NewBatch()
	docSecs, docRank := map[string][]section{}, map[string]int{}
	var docOrder []string
	for _, p := range sorted {
		md := parseMarkdown(p.Markdown, p.HTML)
		e := &pageEntry{page: p, title: validUTF8(p.Title), summary: validUTF8(p.Summary), body: validUTF8(md.text)}
		ix.byPath[p.Path] = e
		doc := map[string]any{"type": p.Type}
		setText(doc, "title", e.title)
		setText(doc, "summary", e.summary)
		setText(doc, "body", e.body)
		if !p.Updated.IsZero() {
			doc["updated"] = p.Updated
		}
		if err := pb.Index(p.Path, doc); err != nil {
			return nil, fmt.Errorf("search: index %s: %w", p.Path, err)
		}
		if p.Type != content.TypeDocs {
			continue
		}
		docSecs[p.Path] = md.sections
		docRank[p.Path] = p.Order
		docOrder = append(docOrder, p.Path)
		for _, s := range md.sections {
			ps := &Passage{PageTitle: e.title, Heading: validUTF8(s.heading), URL: p.Path, Text: validUTF8(s.text)}
			if s.anchor != "" {
				ps.URL += "#" + s.anchor
			}
			if _, dup := ix.byID[ps.URL]; dup {
				continue // cannot happen: heading ids are unique in a page
			}
			ix.byID[ps.URL] = ps
			doc := map[string]any{}
			setText(doc, "page_title", joinToDo(ps.PageTitle))
			setText(doc, "heading", joinToDo(ps.Heading))
			setText(doc, "text", joinToDo(ps.Text))
			doc[partsField.name] = compoundParts(ps.Text) // matched by stem only
			if err := qb.Index(ps.URL, doc); err != nil {
				return nil, fmt.Errorf("search: index %s: %w", ps.URL, err)
			}
		}
	}
	// One batch per index, so one segment each; the two are built side by side.
	var perr, qerr error
	var wg sync.WaitGroup
	wg.Go(func() { qerr = ix.passages.Batch(qb) })
	perr = ix.pages.Batch(pb)
	wg.Wait()
	if perr != nil {
		return nil, fmt.Errorf("search: index pages: %w", perr)
	}
	if qerr != nil {
		return nil, fmt.Errorf("search: index passages: %w", qerr)
	}
	if ix.pageVocab, err = buildVocab(ix.pages, pageFields); err != nil {
		return nil, err
	}
	if ix.passageVocab, err = buildVocab(ix.passages, passageFields); err != nil {
		return nil, err
	}
	ix.buildAnswerer(docSecs, docOrder, docRank)
	ok = true
	return ix, nil
}

// snakeName is a snake_case name (`signing_secret`, `page_size`).
var snakeName = regexp.MustCompile(`\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b`)

// compoundParts are the words of a text's snake_case and CamelCase names: the analyzer
// keeps `signing_secret` whole, so a question's "signing secret" would not retrieve the
// one table row that says what the secret looks like. The answerer's terms hold these
// parts too (addTerm, camelWord); this keeps retrieval in step.
func compoundParts(text string) string {
	var b strings.Builder
	for _, n := range snakeName.FindAllString(text, -1) {
		b.WriteString(strings.ReplaceAll(n, "_", " "))
		b.WriteString(" ")
	}
	for _, w := range camelWord.FindAllString(text, -1) {
		for _, part := range camelPart.FindAllString(w, -1) {
			b.WriteString(part)
			b.WriteString(" ")
		}
	}
	return b.String()
}

// validUTF8 drops invalid bytes (Bleve's fragmenter gives up at a replacement character).
func validUTF8(s string) string { return strings.ToValidUTF8(s, "") }

func setText(doc map[string]any, name, text string) {
	doc[name] = text
	doc[name+"_raw"] = text
}

// newMapping is the index mapping of documents with the given text fields.
func newMapping(fields []field, more func(*mapping.DocumentMapping)) (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	// BM25, not Bleve's default tf-idf: the field mapping.IndexMappingImpl.ScoringModel
	// (bleve v2.6.1 mapping/index.go) set to index.BM25Scoring ("bm25", bleve_index_api
	// v1.4.1 indexing_options.go). Only the scorch index type computes BM25's average field
	// length (index.BM25Reader); see newMemIndex.
	im.ScoringModel = index.BM25Scoring
	if err := im.AddCustomAnalyzer(wordsAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{lowercase.Name},
	}); err != nil {
		return nil, fmt.Errorf("search: mapping: %w", err)
	}
	im.DefaultAnalyzer = en.AnalyzerName
	im.IndexDynamic, im.StoreDynamic, im.DocValuesDynamic = false, false, false
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range fields {
		dm.AddFieldMappingsAt(f.name, textField(en.AnalyzerName))
		dm.AddFieldMappingsAt(f.raw(), textField(wordsAnalyzer))
	}
	if more != nil {
		more(dm)
	}
	im.DefaultMapping = dm
	if err := im.Validate(); err != nil {
		return nil, fmt.Errorf("search: mapping: %w", err)
	}
	return im, nil
}

func textField(analyzer string) *mapping.FieldMapping {
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer = analyzer
	fm.Store = false             // texts are kept in Go; highlights are made from them
	fm.IncludeTermVectors = true // match locations, for highlights
	fm.IncludeInAll = false
	fm.DocValues = false
	return fm
}

// newMemIndex opens an in-memory scorch index. bleve.NewMemOnly would give the older
// upsidedown index type, whose reader has no field statistics: with it a BM25 mapping
// silently scores tf-idf (the term scorer falls back when the average length is 0).
func newMemIndex(m mapping.IndexMapping) (bleve.Index, error) {
	ix, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("search: open index: %w", err)
	}
	return ix, nil
}

// contentHash identifies the indexed content (and the indexing scheme).
func contentHash(sorted []*content.Page) []byte {
	h := sha256.New()
	put := func(s string) {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	put("answerdesk search index v1")
	for _, p := range sorted {
		put(p.Path)
		put(p.Type)
		put(p.Title)
		put(p.Summary)
		put(p.Updated.UTC().Format(time.RFC3339))
		put(p.Markdown)
	}
	return h.Sum(nil)
}

// Close releases the index.
func (ix *Index) Close() error {
	var errs []error
	if ix.pages != nil {
		errs = append(errs, ix.pages.Close())
	}
	if ix.passages != nil {
		errs = append(errs, ix.passages.Close())
	}
	return errors.Join(errs...)
}

// firstChars returns s up to its nth character: limits on input count characters, so a
// question in a script of three-byte letters keeps as much as one in ASCII.
func firstChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// normalize collapses the blanks of a query.
func normalize(q string) string {
	return strings.Join(strings.Fields(q), " ")
}

// word is a word of a query: as typed (lower-cased) and its stem ("" for a stop word).
type word struct{ raw, stem string }

func (ix *Index) split(q string) []word {
	q = firstChars(q, maxQueryChars)
	var ws []word
	for _, t := range ix.words.Analyze([]byte(strings.ToValidUTF8(q, " "))) {
		if len(ws) == maxWords {
			break
		}
		w := word{raw: string(t.Term)}
		if st := ix.stems.Analyze(t.Term); len(st) > 0 {
			w.stem = string(st[0].Term)
		}
		ws = append(ws, w)
	}
	return ws
}

// buildQuery is the query for the words in the fields: each word matches its stem, the
// indexed words one typo from it (words of fuzzyMin characters or more), and, for the last
// word when prefix is set, the indexed words it begins (at most maxExpansions per field).
// With all, every word must match (must); otherwise any (should, at least one). Stop words
// are left out, except a last word of a prefix query (it may be the start of a word), which
// then only improves the score (should), unless it is the only word. Both are empty when no
// word can match.
func buildQuery(words []word, fields []field, all, prefix bool, v *vocab) (must, should []query.Query) {
	term := func(t, field string, boost float64) query.Query {
		q := query.NewTermQuery(t)
		q.SetField(field)
		q.SetBoost(boost)
		return q
	}
	anyOf := func(qs []query.Query) query.Query {
		if len(qs) == 1 {
			return qs[0]
		}
		return query.NewDisjunctionQuery(qs)
	}
	for i, w := range words {
		last := i == len(words)-1
		n := utf8.RuneCountInString(w.raw)
		var typos []typo
		if w.stem != "" && n >= fuzzyMin {
			typos = v.typos(w.raw)
		}
		var cl []query.Query
		for _, f := range fields {
			if w.stem != "" {
				cl = append(cl, term(w.stem, f.name, f.boost*exactBoost))
			} else if prefix && last {
				cl = append(cl, term(w.raw, f.raw(), f.boost*exactBoost))
			}
			var fz []query.Query
			for _, t := range v.present(f.raw(), typos) {
				if t.dist == 0 {
					continue // the word itself: the stem clause has its matches
				}
				// Bleve's fuzzy query weighs a match by 1/(1+edits) the same way.
				fz = append(fz, term(t.word, f.raw(), f.boost*fuzzyBoost/float64(1+t.dist)))
			}
			if len(fz) > 0 {
				cl = append(cl, anyOf(fz))
			}
			if prefix && last && n >= prefixMin {
				var px []query.Query
				for _, t := range v.prefixed(f.raw(), w.raw, maxExpansions) {
					px = append(px, term(t, f.raw(), f.boost*prefixBoost))
				}
				if len(px) > 0 {
					cl = append(cl, anyOf(px))
				}
			}
		}
		if len(cl) == 0 {
			continue // a stop word
		}
		wq := query.NewDisjunctionQuery(cl)
		if all && w.stem != "" {
			must = append(must, wq)
		} else {
			should = append(should, wq)
		}
	}
	if all && len(must) == 0 {
		must, should = should, nil
	}
	return must, should
}

// byScoreThenID orders hits deterministically, so that pages neither repeat nor skip.
var byScoreThenID = []string{"-_score", "_id"}

// Search runs a site search.
func (ix *Index) Search(ctx context.Context, q Query) (*Page, error) {
	text := normalize(q.Q)
	if text == "" {
		return nil, ErrEmptyQuery
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if !answerdesk.ValidSearchLimit(limit) {
		return nil, ErrBadLimit
	}
	if q.Type != "" && !answerdesk.ValidPageType(q.Type) {
		return nil, ErrBadType
	}
	offset := 0
	if q.Cursor != "" {
		var err error
		if offset, err = ix.decodeCursor(q.Cursor, text, q.Type, limit); err != nil {
			return nil, err
		}
	}
	if q.Type == content.TypeDocs {
		return ix.searchDocs(ctx, text, limit, offset)
	}
	out := &Page{Results: []Result{}}
	must, should := buildQuery(ix.split(text), pageFields, true, true, ix.pageVocab)
	if len(must) == 0 {
		return out, nil
	}
	if q.Type != "" {
		t := query.NewTermQuery(q.Type)
		t.SetField("type")
		must = append(must, t)
	}
	bq := query.NewBooleanQuery(must, should, nil)
	req := bleve.NewSearchRequestOptions(bq, limit, offset, false)
	req.SortBy(byScoreThenID)
	// Match locations, for the highlights: on a small index in the search itself; on a large
	// one, where reading them for every match would be most of the cost, by running the
	// query again over this page's hits only.
	twoPass := ix.docs >= twoPassDocs
	req.IncludeLocations = !twoPass
	res, err := ix.pages.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var locs map[string]bsearch.FieldTermLocationMap
	if twoPass {
		if locs, err = ix.locations(ctx, bq, res.Hits); err != nil {
			return nil, err
		}
	} else {
		locs = make(map[string]bsearch.FieldTermLocationMap, len(res.Hits))
		for _, h := range res.Hits {
			locs[h.ID] = h.Locations
		}
	}
	for _, h := range res.Hits {
		e, ok := ix.byPath[h.ID]
		if !ok {
			continue
		}
		p := e.page
		out.Results = append(out.Results, Result{
			Title: p.Title, Summary: p.Summary, URL: p.Path, MarkdownURL: p.MarkdownPath(),
			Type: p.Type, Updated: p.Updated, Highlight: ix.highlight(locs[h.ID], e),
		})
	}
	if next := offset + limit; len(res.Hits) == limit && uint64(next) < res.Total && next <= maxOffset {
		out.NextCursor = ix.encodeCursor(text, q.Type, limit, next)
	}
	return out, nil
}

// highlight is the best fragment of the body, summary or title, with the matched words
// marked: of the text where the most distinct words matched (the body on a tie, then the
// summary); the start of the summary (or body) when nothing can be marked.
func (ix *Index) highlight(fl bsearch.FieldTermLocationMap, e *pageEntry) string {
	best, bestText, bestN := "", "", 0
	var bestLocs bsearch.TermLocationMap
	for _, f := range []struct{ name, text string }{
		{"body", e.body}, {"summary", e.summary}, {"title", e.title},
	} {
		locs := mergeLocations(fl[f.name], fl[f.name+"_raw"])
		if len(locs) == 0 || f.text == "" {
			continue
		}
		words := map[string]bool{}
		for _, ls := range locs {
			for _, l := range ls {
				if l.End <= uint64(len(f.text)) && l.Start < l.End {
					words[strings.ToLower(f.text[l.Start:l.End])] = true
				}
			}
		}
		if len(words) > bestN {
			best, bestText, bestN, bestLocs = f.name, f.text, len(words), locs
		}
	}
	if best != "" {
		doc := document.NewDocument(e.page.Path)
		doc.AddField(document.NewTextField(best, nil, []byte(bestText)))
		dm := &bsearch.DocumentMatch{Locations: bsearch.FieldTermLocationMap{best: bestLocs}}
		if s := ix.hl.BestFragmentInField(dm, doc, best); s != "" {
			return strings.ReplaceAll(s, "\n", " ")
		}
	}
	s := e.summary
	if s == "" {
		s = e.body
	}
	if utf8.RuneCountInString(s) > fragmentSize {
		s = string([]rune(s)[:fragmentSize]) + "…"
	}
	return html.EscapeString(strings.ReplaceAll(s, "\n", " "))
}

// wordFragmenter moves the ends of a fragment to word boundaries, when that is near and
// leaves the fragment's matches in it.
type wordFragmenter struct{ highlight.Fragmenter }

func (f wordFragmenter) Fragment(orig []byte, ot highlight.TermLocations) []*highlight.Fragment {
	const reach = 20 // bytes
	blank := func(c byte) bool { return c == ' ' || c == '\n' || c == '\t' }
	frags := f.Fragmenter.Fragment(orig, ot)
	for _, fr := range frags {
		lo, hi := fr.End, fr.Start // the span of the matches in the fragment
		for _, tl := range ot {
			if tl != nil && tl.Start >= fr.Start && tl.End <= fr.End {
				lo, hi = min(lo, tl.Start), max(hi, tl.End)
			}
		}
		if fr.Start > 0 && !blank(orig[fr.Start-1]) {
			for i := fr.Start; i < lo && i < fr.Start+reach; i++ {
				if blank(orig[i]) {
					fr.Start = i + 1
					break
				}
			}
		}
		if fr.End < len(orig) && !blank(orig[fr.End]) {
			for i := fr.End; i > hi && i > fr.End-reach; i-- {
				if blank(orig[i-1]) {
					fr.End = i - 1
					break
				}
			}
		}
	}
	return frags
}

// locations runs the query again over the given hits only, for their match locations.
func (ix *Index) locations(ctx context.Context, q query.Query, hits bsearch.DocumentMatchCollection) (map[string]bsearch.FieldTermLocationMap, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), q}), len(ids), 0, false)
	req.IncludeLocations = true
	req.Score = "none"
	res, err := ix.pages.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := make(map[string]bsearch.FieldTermLocationMap, len(res.Hits))
	for _, h := range res.Hits {
		out[h.ID] = h.Locations
	}
	return out, nil
}

// mergeLocations joins the match locations of the stemmed and the raw field of a text
// (same text, same offsets), dropping duplicates.
func mergeLocations(a, b bsearch.TermLocationMap) bsearch.TermLocationMap {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	type span struct{ start, end uint64 }
	seen := map[span]bool{}
	out := bsearch.TermLocationMap{}
	for _, m := range []bsearch.TermLocationMap{a, b} {
		for term, locs := range m {
			for _, l := range locs {
				s := span{l.Start, l.End}
				if seen[s] {
					continue
				}
				seen[s] = true
				out[term] = append(out[term], l)
			}
		}
	}
	return out
}
