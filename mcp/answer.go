package mcp

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
)

// The extractive answerer. The documentation pages are split once into sections (the text
// under each "## " heading, and the introduction before the first) and each section into
// units: sentences of paragraphs and list items, and table rows rendered with their column
// names. Code blocks are left out. A question's passages (search.Index.Passages) select the
// candidate sections; each unit is scored by the share of the question's content words
// (weighted by rarity across the docs) it holds, its section heading and page title
// counting for less, plus the passage's retrieval score. The best units, in document
// order, are the answer, quoted verbatim so that numbers, codes and parameter names stay
// as written.

// docsKB is the documentation split for answering.
type docsKB struct {
	byURL    map[string]*docSection   // by passage URL: path, or path#anchor
	byPage   map[string][]*docSection // by page path, in page order
	df       map[string]int           // units a term occurs in
	known    termSet                  // every term of the docs: units, headings and titles
	units    int
	docPages []*content.Page
}

type docSection struct {
	page    *content.Page
	heading string // plain text; "" for the introduction
	url     string // path#anchor, or path for the introduction
	units   []*unit
	context termSet // terms of the heading and the page title
}

type unit struct {
	sec   *docSection
	idx   int
	text  string   // Markdown, links made absolute
	terms termSet  // stems, for matching
	seq   []string // stems in order, for phrase matches
	words int
}

type termSet map[string]bool

func newDocsKB(site *content.Site, base string) *docsKB {
	kb := &docsKB{byURL: map[string]*docSection{}, byPage: map[string][]*docSection{}, df: map[string]int{}, known: termSet{}}
	for _, pg := range site.Pages {
		if pg.Type != content.TypeDocs {
			continue
		}
		kb.docPages = append(kb.docPages, pg)
		secs := splitSections(pg, base)
		kb.byPage[pg.Path] = secs
		for _, s := range secs {
			kb.byURL[s.url] = s
			for t := range s.context {
				kb.known[t] = true
			}
			for _, u := range s.units {
				kb.units++
				for t := range u.terms {
					kb.df[t]++
					kb.known[t] = true
				}
			}
		}
	}
	return kb
}

// properName is a capitalised word inside a sentence: a product, company or place.
var properName = regexp.MustCompile(`[^.?!]\s+([A-Z][a-z]{3,})`)

// namesUnknown reports whether the question names something the documentation never
// mentions ("... integrate with Salesforce?"): whatever else matches, the docs cannot
// answer a question about it.
func (kb *docsKB) namesUnknown(text string) bool {
	for _, m := range properName.FindAllStringSubmatch(text, -1) {
		for _, t := range tokens(m[1]) { // stemmed as the docs' terms are
			if !kb.known[t] {
				return true
			}
		}
	}
	return false
}

// idf is the rarity of a term across the units: high for a term few units have, highest
// for one none has.
func (kb *docsKB) idf(t string) float64 {
	return math.Log((float64(kb.units) + 1) / (float64(kb.df[t]) + 0.5))
}

var (
	headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	listItem    = regexp.MustCompile(`^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(.*)$`)
	relLink     = regexp.MustCompile(`\]\((/[^)\s]*)\)`)
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	h2IDs       = regexp.MustCompile(`<h2 id="([^"]*)"`)
	tableSep    = regexp.MustCompile(`^[\s|:-]+$`)
)

// splitSections splits a docs page into its sections and their units. The anchors are the
// ids of the rendered page's <h2> elements (the same the search index uses).
func splitSections(pg *content.Page, base string) []*docSection {
	ids := h2IDs.FindAllStringSubmatch(pg.HTML, -1)
	title := termsOf(pg.Title)
	intro := &docSection{page: pg, url: pg.Path, context: title}
	secs := []*docSection{intro}
	cur := intro
	h2 := 0

	var para, item []string
	var table [][]string
	// add adds the sentences of a text as units; a table row or a short list item is one
	// unit whatever its sentences, so that no part of it stands alone.
	add := func(text string, whole bool) {
		text = strings.Join(strings.Fields(text), " ")
		text = relLink.ReplaceAllString(text, "]("+base+"$1)")
		parts := []string{text}
		if !whole || len(text) > 400 {
			parts = sentences(text)
		}
		for _, s := range parts {
			seq := tokens(s)
			if len(seq) == 0 {
				continue
			}
			u := &unit{sec: cur, idx: len(cur.units), text: s, terms: termSet{}, seq: seq, words: len(strings.Fields(s))}
			for _, t := range seq {
				addTerm(u.terms, t)
			}
			cur.units = append(cur.units, u)
		}
	}
	flushPara := func() {
		if len(para) > 0 {
			add(strings.Join(para, " "), false)
			para = nil
		}
	}
	flushItem := func() {
		if len(item) > 0 {
			add(strings.Join(item, " "), true)
			item = nil
		}
	}
	flushTable := func() {
		if len(table) > 1 {
			header := table[0]
			for _, row := range table[1:] {
				if r := tableRow(header, row); r != "" {
					add(r, true)
				}
			}
		}
		table = nil
	}
	flush := func() { flushPara(); flushItem(); flushTable() }

	fence := ""
	for _, line := range strings.Split(pg.Markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flush()
			fence = trimmed[:3]
			// The code is left out, so a sentence that introduced it ends the thought.
			if n := len(cur.units); n > 0 && strings.HasSuffix(cur.units[n-1].text, ":") {
				cur.units[n-1].text = strings.TrimSuffix(cur.units[n-1].text, ":") + "."
			}
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			flush()
			if len(m[1]) == 2 {
				heading := plainInline(m[2])
				anchor := content.HeadingID(heading)
				if h2 < len(ids) {
					anchor = ids[h2][1]
				}
				h2++
				ctx := termSet{}
				for t := range title {
					ctx[t] = true
				}
				for t := range termsOf(heading) {
					ctx[t] = true
				}
				cur = &docSection{page: pg, heading: heading, url: pg.Path + "#" + anchor, context: ctx}
				secs = append(secs, cur)
			}
			continue
		}
		if trimmed == "" {
			flush()
			continue
		}
		if strings.HasPrefix(trimmed, "|") {
			flushPara()
			flushItem()
			if !tableSep.MatchString(trimmed) || len(table) == 0 {
				table = append(table, splitRow(trimmed))
			}
			continue
		}
		flushTable()
		trimmed = strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
		if m := listItem.FindStringSubmatch(line); m != nil {
			flushPara()
			flushItem()
			item = []string{m[1]}
			continue
		}
		if len(item) > 0 {
			item = append(item, trimmed)
			continue
		}
		para = append(para, trimmed)
	}
	flush()
	if h2 != len(ids) {
		// The rendered page has other <h2> than the body's "## " lines (a heading inside a
		// list or quote): make the anchors as content.Load does instead.
		seen := map[string]bool{}
		for _, s := range secs[1:] {
			base := content.HeadingID(s.heading)
			id := base
			for i := 1; seen[id]; i++ {
				id = fmt.Sprintf("%s-%d", base, i)
			}
			seen[id] = true
			s.url = pg.Path + "#" + id
		}
	}
	out := secs[:0]
	for _, s := range secs {
		if len(s.units) > 0 || s.heading != "" {
			out = append(out, s)
		}
	}
	return out
}

// splitRow splits a Markdown table row into its cells (a "|" inside `code` is not a
// separator; "\|" is an escaped bar).
func splitRow(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	var cells []string
	var b strings.Builder
	code := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		switch {
		case c == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`':
			code = !code
			b.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// tableRow renders a row as a sentence: "first: second" for two columns, otherwise
// "first — Column: value; Column: value".
func tableRow(header, row []string) string {
	if len(row) == 0 || strings.Join(row, "") == "" {
		return ""
	}
	if len(row) == 2 {
		if row[1] == "" {
			return row[0]
		}
		return strings.TrimSuffix(row[0], ":") + ": " + row[1]
	}
	var parts []string
	for i := 1; i < len(row); i++ {
		if row[i] == "" {
			continue
		}
		if i < len(header) && header[i] != "" {
			parts = append(parts, header[i]+": "+row[i])
		} else {
			parts = append(parts, row[i])
		}
	}
	if len(parts) == 0 {
		return row[0]
	}
	return row[0] + " — " + strings.Join(parts, "; ")
}

// plainInline strips inline Markdown (code marks, emphasis, links) from a heading.
func plainInline(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("`", "", "**", "", "__", "").Replace(s)
	return strings.TrimSpace(s)
}

var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true, "no": true}

// sentences splits a paragraph at the ends of its sentences: ".", "!" or "?" followed by a
// blank and a capital letter, digit, code span, quote or bracket, outside `code`, and not
// after an abbreviation such as "e.g.".
func sentences(s string) []string {
	var out []string
	start := 0
	code := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '`' {
			code = !code
			continue
		}
		if code || (c != '.' && c != '!' && c != '?') || i+2 >= len(rs) || rs[i+1] != ' ' {
			continue
		}
		next := rs[i+2]
		if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune("`\"([*", next) {
			continue
		}
		if c == '.' {
			w := i - 1
			for w >= 0 && rs[w] != ' ' {
				w--
			}
			word := strings.ToLower(strings.TrimLeft(string(rs[w+1:i]), "(\"*"))
			if abbreviations[word] {
				continue
			}
		}
		if sent := strings.TrimSpace(string(rs[start : i+1])); sent != "" {
			out = append(out, sent)
		}
		start = i + 2
	}
	if sent := strings.TrimSpace(string(rs[start:])); sent != "" {
		out = append(out, sent)
	}
	return out
}

// stopWords are left out of matching: function words and the words of asking.
var stopWords = func() termSet {
	set := termSet{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are aren't as at be because been
		before being below between both but by can cannot could did do does doing don't down during each few for from
		further had has have having he her here hers him his how i if in into is isn't it its itself just me more
		my myself no nor not now of off on once only or other ought our ours out over own same she should so some such
		than that the their theirs them then there these they this those through to too under until up very was we were
		what when where which while who whom why will with would you your yours yourself also get gets got use used using
		tell explain describe mean means meaning happen happens happened want need needs does doesn't there's what's
		answerdesk please one possible different kind kinds various`) {
		set[w] = true
	}
	return set
}()

// stopStems are the stems of the stop words of more than three letters.
var stopStems = func() termSet {
	set := termSet{}
	for w := range stopWords {
		if len(w) > 3 && !strings.Contains(w, "'") {
			set[stem(w)] = true
		}
	}
	return set
}()

// tokens are the stems of a text's content words, in order. Words keep "_" (page_size)
// and the "." or "," between digits (1.25.5, 20,000).
func tokens(s string) []string {
	s = strings.ToLower(s)
	var out []string
	var b strings.Builder
	rs := []rune(s)
	emit := func() {
		if b.Len() == 0 {
			return
		}
		w := strings.Trim(b.String(), "_")
		b.Reset()
		if w == "" || stopWords[w] {
			return
		}
		st := stem(w)
		if stopStems[st] {
			return // needed, happens: other forms of a stop word
		}
		out = append(out, st)
	}
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			b.WriteRune(r)
		case (r == '.' || r == ',') && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]):
			if r == '.' {
				b.WriteRune(r)
			}
		default:
			emit()
		}
	}
	emit()
	return out
}

// irregular maps irregular verb forms to their base form, which Porter does not relate.
var irregular = map[string]string{
	"kept": "keep", "sent": "send", "held": "hold", "made": "make", "taken": "take", "took": "take",
	"given": "give", "gave": "give", "found": "find", "written": "write", "wrote": "write",
	"began": "begin", "begun": "begin", "chosen": "choose", "chose": "choose", "paid": "pay",
	"spent": "spend", "lost": "lose", "shown": "show", "known": "know", "seen": "see",
	"ran": "run", "went": "go", "gone": "go", "came": "come", "became": "become", "broken": "break",
}

// stem is the Porter stem of a word of letters; other words are kept as they are.
func stem(w string) string {
	if base, ok := irregular[w]; ok {
		w = base
	}
	if strings.HasSuffix(w, "uses") || strings.HasSuffix(w, "sses") {
		w = w[:len(w)-2] // statuses, addresses: Porter stems the singular apart
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return w
		}
	}
	if len(w) <= 3 {
		return w
	}
	return porterstemmer.StemString(w)
}

// addTerm adds a token to a set, with the parts of a word joined by "_" (page_size also
// matches "page" and "size").
func addTerm(set termSet, t string) {
	set[t] = true
	if strings.Contains(t, "_") {
		for _, p := range strings.Split(t, "_") {
			if p != "" && !stopWords[p] {
				set[stem(p)] = true
			}
		}
	}
}

func termsOf(s string) termSet {
	set := termSet{}
	for _, t := range tokens(s) {
		addTerm(set, t)
	}
	return set
}

// question is a question prepared for scoring.
type question struct {
	terms   []qterm
	total   float64
	bigrams [][2]string
	number  bool // asks for an amount, a duration or a limit
	code    bool // asks for a name: a header, code, variable, flag, parameter
	howTo   bool // asks how to do something
}

// qterm is a content word of a question: its stem, the stems that may stand for it in the
// docs, and its weight (its rarity across the docs).
type qterm struct {
	stem   string
	alts   []string
	weight float64
}

// match is how much of the term's weight a set of terms holds: all of it for the word
// itself, most of it for a synonym.
func (t qterm) match(set termSet) float64 {
	if set[t.stem] {
		return t.weight
	}
	if slices.ContainsFunc(t.alts[1:], func(a string) bool { return set[a] }) {
		return 0.8 * t.weight
	}
	return 0
}

func (t qterm) in(set termSet) bool { return t.match(set) > 0 }

// synonyms are the words the docs use for a word of a question (by stem).
var synonyms = func() map[string][]string {
	groups := map[string][]string{
		"start":    {"run", "prefix", "begin"},
		"begin":    {"start", "prefix"},
		"keep":     {"retent", "retain", "store"},
		"retain":   {"retent", "keep"},
		"expir":    {"valid", "expire"},
		"valid":    {"expir"},
		"maximum":  {"max", "most", "limit"},
		"max":      {"maximum", "most", "limit"},
		"limit":    {"maximum", "max", "most"},
		"minimum":  {"min", "least"},
		"length":   {"charact", "byte", "long"},
		"size":     {"byte", "mib", "kib"},
		"allow":    {"accept", "permit"},
		"accept":   {"allow"},
		"remov":    {"delet"},
		"delet":    {"remov"},
		"webhook":  {"deliveri", "endpoint", "dispatch"},
		"creat":    {"make"},
		"expiri":   {"valid", "expir"},
		"requir":   {"need", "mandatori"},
		"error":    {"fail"},
		"fail":     {"error"},
		"last":     {"expir", "valid"},
		"wait":     {"delai"},
		"id":       {"identifi"},
		"password": {"credenti"},
	}
	out := map[string][]string{}
	for k, vs := range groups {
		out[stem(k)] = nil
		for _, v := range vs {
			out[stem(k)] = append(out[stem(k)], stem(v))
		}
	}
	return out
}()

var (
	numberQuestion = regexp.MustCompile(`\b(how (long|many|much|often|big|large|soon)|what (is|are) the (max|maximum|min|minimum|default|limit|size|length|range|port|version)|which port|(what|which) (\w+ )?version|at most|at least|limit)\b`)
	howToQuestion  = regexp.MustCompile(`^\s*(how (do|can|should|would|could) (i|we|you|one)|how to|what should i do)\b`)
	codeQuestion   = regexp.MustCompile(`\b(which|what) (\w+ )?(header|headers|code|codes|variable|variables|flag|flags|parameter|parameters|field|fields|prefix|status|command|format|scope|scopes|error)\b`)
)

// askingPhrases are the words of asking for an amount; they are not content words.
var askingPhrases = regexp.MustCompile(`(?i)\bhow (long|many|much|often|big|large|soon|far)\b`)

func (kb *docsKB) prepare(text string) question {
	var q question
	seq := tokens(askingPhrases.ReplaceAllString(text, " "))
	seen := termSet{}
	for _, t := range seq {
		set := termSet{}
		addTerm(set, t)
		for p := range set {
			if seen[p] {
				continue
			}
			seen[p] = true
			w := kb.idf(p)
			if p != t {
				w *= 0.5 // a part of a compound word counts half
			}
			q.terms = append(q.terms, qterm{stem: p, alts: append([]string{p}, synonyms[p]...), weight: w})
			q.total += w
		}
	}
	// A synonym that is itself a word of the question does not count twice.
	for i := range q.terms {
		alts := q.terms[i].alts[:1]
		for _, a := range q.terms[i].alts[1:] {
			if !seen[a] {
				alts = append(alts, a)
			}
		}
		q.terms[i].alts = alts
	}
	slices.SortFunc(q.terms, func(a, b qterm) int { return strings.Compare(a.stem, b.stem) })
	for i := 0; i+1 < len(seq); i++ {
		q.bigrams = append(q.bigrams, [2]string{seq[i], seq[i+1]})
	}
	lower := strings.ToLower(text)
	q.number = numberQuestion.MatchString(lower)
	q.code = codeQuestion.MatchString(lower)
	q.howTo = howToQuestion.MatchString(lower)
	return q
}

// scored is a unit with its score for a question.
type scored struct {
	u        *unit
	score    float64
	coverage float64 // share of the question's weight the unit (and, for less, its context) holds
	own      float64 // share held by the unit's own words
}

var digit = regexp.MustCompile(`\d`)

func (kb *docsKB) score(q question, u *unit, retrieval float64) scored {
	if q.total == 0 {
		return scored{u: u}
	}
	var own, ctx float64
	for _, t := range q.terms {
		if m := t.match(u.terms); m > 0 {
			own += m
		} else {
			ctx += t.match(u.sec.context)
		}
	}
	s := scored{u: u, own: own / q.total}
	s.coverage = (own + 0.4*ctx) / q.total
	s.score = s.coverage + 0.15*retrieval
	phrases := 0
	for _, bg := range q.bigrams {
		for i := 0; i+1 < len(u.seq); i++ {
			if u.seq[i] == bg[0] && u.seq[i+1] == bg[1] {
				phrases++
				break
			}
		}
	}
	s.score += math.Min(0.15, 0.06*float64(phrases))
	if q.number && digit.MatchString(u.text) {
		s.score += 0.08
	}
	if q.code && strings.Contains(u.text, "`") {
		s.score += 0.05
	}
	if q.howTo && imperative(u.text) {
		s.score += 0.2
	}
	// Long sentences match many words by their length alone.
	switch {
	case u.words < 5:
		s.score -= 0.1
	case u.words > 40:
		s.score -= math.Min(0.2, 0.003*float64(u.words-40))
	}
	if strings.HasSuffix(u.text, ":") {
		s.score -= 0.05 // a lead-in to a list says little alone
	}
	return s
}

// Answer thresholds: the best unit must hold at least minCoverage of the question's weight
// (heading and title counting half), and at least minOwn by its own words.
const (
	minCoverage   = 0.42
	minOwn        = 0.2
	maxAnswerUnit = 4
	maxAnswerLen  = 900 // characters
)

// extract is an extractive answer.
type extract struct {
	units    []*unit // the answer's sentences, in answer order
	answered bool
	related  []*docSection // the closest sections when not answered
}

// answer picks the sentences that answer a question from the sections of its passages.
func (kb *docsKB) answer(text string, passages []search.Passage) extract {
	q := kb.prepare(text)
	var cands []scored
	seen := map[*docSection]bool{}
	top := 0.0
	if len(passages) > 0 {
		top = passages[0].Score
	}
	var related []*docSection
	for _, p := range passages {
		sec := kb.byURL[p.URL]
		if sec == nil || seen[sec] {
			continue
		}
		seen[sec] = true
		related = append(related, sec)
		r := 0.0
		if top > 0 {
			r = p.Score / top
		}
		for _, u := range sec.units {
			cands = append(cands, kb.score(q, u, r))
		}
	}
	if len(cands) == 0 {
		return extract{related: related}
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	best := cands[0]
	if best.coverage < minCoverage || best.own < minOwn || kb.namesUnknown(text) {
		if len(related) > 2 {
			related = related[:2]
		}
		return extract{related: related}
	}
	chosen := []scored{best}
	length := len(best.u.text)
	// The sentences after the best one when it introduces them ("...:") or the next one
	// continues it ("It", "This", ...).
	leadIn := strings.HasSuffix(best.u.text, ":")
	for u := best.u; ; {
		next := nextUnit(u)
		if next == nil || len(chosen) > maxAnswerUnit || length+len(next.text) > maxAnswerLen ||
			!leadIn && !continues(next.text) {
			break
		}
		chosen = append(chosen, scored{u: next, score: best.score})
		length += len(next.text)
		if !leadIn {
			break
		}
		u = next
	}
	for _, c := range cands[1:] {
		if len(chosen) >= maxAnswerUnit {
			break
		}
		if c.score < 0.9*best.score || c.own < minOwn || length+len(c.text()) > maxAnswerLen {
			continue
		}
		if slices.ContainsFunc(chosen, func(o scored) bool { return o.u == c.u || similar(o.u, c.u) }) {
			continue
		}
		// A sentence from another section must add a question word the answer lacks.
		if c.u.sec != best.u.sec && !addsTerm(q, chosen, c.u) {
			continue
		}
		chosen = append(chosen, c)
		length += len(c.u.text)
	}
	// Answer order: sections in the order they were chosen (the best first), sentences in
	// page order within a section.
	order := map[*docSection]int{}
	for _, c := range chosen {
		if _, ok := order[c.u.sec]; !ok {
			order[c.u.sec] = len(order)
		}
	}
	slices.SortStableFunc(chosen, func(a, b scored) int {
		if oa, ob := order[a.u.sec], order[b.u.sec]; oa != ob {
			return oa - ob
		}
		return a.u.idx - b.u.idx
	})
	out := extract{answered: true}
	for _, c := range chosen {
		out.units = append(out.units, c.u)
	}
	return out
}

func (s scored) text() string { return s.u.text }

func nextUnit(u *unit) *unit {
	if u.idx+1 < len(u.sec.units) {
		return u.sec.units[u.idx+1]
	}
	return nil
}

// imperatives are the verbs that open an instruction in the docs ("Run `make run`").
var imperatives = termSet{}

func init() {
	for _, w := range strings.Fields(`add avoid back call check copy create delete fetch follow give increase keep list pass poll
		put quote read remove replace restrict run send set spread start stop turn use verify wait watch`) {
		imperatives[w] = true
	}
}

// imperative reports whether a sentence is an instruction: it opens with an imperative verb
// (or "To ..., <verb>").
func imperative(s string) bool {
	first, _, _ := strings.Cut(s, " ")
	if imperatives[strings.ToLower(first)] {
		return true
	}
	if strings.HasPrefix(s, "To ") {
		if _, rest, ok := strings.Cut(s, ", "); ok {
			first, _, _ = strings.Cut(rest, " ")
			return imperatives[strings.ToLower(first)]
		}
	}
	return false
}

var continuation = regexp.MustCompile(`^(It|Its|This|That|These|Those|They|Both|Each|Either|Neither|Then|Otherwise|Without|Such)\b`)

func continues(s string) bool { return continuation.MatchString(s) }

// similar reports whether two units say much the same (most of their words shared).
func similar(a, b *unit) bool {
	inter := 0
	for t := range a.terms {
		if b.terms[t] {
			inter++
		}
	}
	union := len(a.terms) + len(b.terms) - inter
	return union > 0 && float64(inter)/float64(union) > 0.6
}

func addsTerm(q question, chosen []scored, u *unit) bool {
	for _, t := range q.terms {
		if !t.in(u.terms) {
			continue
		}
		if !slices.ContainsFunc(chosen, func(c scored) bool { return t.in(c.u.terms) }) {
			return true
		}
	}
	return false
}

// snippet is the part of a section that best matches a query: its best sentence and the
// ones after it, up to about maxLen characters; the section's start when nothing matches.
func (kb *docsKB) snippet(sec *docSection, q question, maxLen int) string {
	if len(sec.units) == 0 {
		return ""
	}
	best, bestScore := 0, -1.0
	for i, u := range sec.units {
		if s := kb.score(q, u, 0); s.score > bestScore {
			best, bestScore = i, s.score
		}
	}
	var parts []string
	n := 0
	for _, u := range sec.units[best:] {
		if n > 0 && n+len(u.text) > maxLen {
			break
		}
		parts = append(parts, u.text)
		n += len(u.text) + 1
	}
	s := strings.Join(parts, " ")
	if r := []rune(s); len(r) > maxLen+100 {
		s = string(r[:maxLen]) + "…"
	}
	return s
}
