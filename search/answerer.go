package search

import (
	"math"
	"regexp"
	"slices"
	"strings"
)

// docSection is a passage prepared for answering.
type docSection struct {
	passage *Passage
	units   []*unit
	context termSet // terms of the page title and the heading
	title   termSet // terms of the page title: the page's topic
	// reference: the section describes an object or shows an example ("The message
	// object", "Example message"): what "which field" asks, not "how do I".
	reference bool
}

type unit struct {
	sec   *docSection
	idx   int
	text  string
	kind  unitKind
	terms termSet // own terms
	ctx   termSet // terms of its heading path: page title, heading, sub heading
	// prev: for a sentence that goes on from the one before it ("It takes `page`..."), that
	// sentence's terms: what "It" stands for. They count as its heading path's do.
	prev  termSet
	seq   []string // terms in order, for phrase matches
	words int
	codes int // code spans
	// choices: the unit names the values something takes, as alternatives ("`text` or
	// `json`"): what "which formats" or "which values" asks for.
	choices bool
	body    bool // quotes a JSON body (`{"status":"ok"}`): what "what does X return" asks
	// leaves are the terms of the last segment of each API path the unit names (its
	// heading's when it names none): the resource it is about ("to-dos" of
	// `GET /api/v2/to-dos`, "deliveries" of `.../to-dos/{id}/deliveries`).
	leaves []string
	raw    []string // the words as written, lower-cased, stop words included
	rawSet termSet  // the same words as a set
	// quantity: the unit states an amount with its unit, what "how long" and "how many" ask
	quantity   bool
	status     bool // names an HTTP status (422) or an error code: what "which error" asks
	format     bool // states a format (`HH:MM`, `MM-DD-YYYY`, ISO 8601, E.164): what "what format" asks
	location   bool // names a path or URL (`/settings/keys`, `http://...`): what "where" asks
	digit      bool // holds a number
	imperative bool // an instruction ("Run `make run`")
}

var (
	camelWord = regexp.MustCompile(`\b[A-Za-z][a-z]+(?:[A-Z][a-z]+)+\b`)
	camelPart = regexp.MustCompile(`[A-Za-z][a-z]+`)
)

type termSet map[string]bool

// answerer is the documentation split for answering, built with the index.
type answerer struct {
	sections map[string]*docSection   // by passage URL
	byPage   map[string][]*docSection // by page path, in page order
	known    termSet                  // every term of the docs
	units    int
	syn      map[string][]string // term → terms that may stand for it in the docs
	rawSyn   map[string][]string // stop word → terms ("down" → retry, fail)
	extraStp termSet             // terms of asking, not content ("explain", "happen")
	irreg    map[string]string   // irregular forms → the term of their base form
	starts   []*Passage          // the introductions of the docs pages, in the docs' order
	// secsByTerm are the sections whose units or heading path hold a term, in docs order.
	secsByTerm map[string][]*docSection
	// unitsByTerm are the units holding a term by their own words, in docs order (how many:
	// the term's document frequency).
	unitsByTerm map[string][]*unit
	// concepts are the terms of the docs' page titles and headings: what the docs are about.
	concepts termSet
	measures termSet // terms of measureWords
	// proper are the terms of names the docs always write capitalised (Twilio, Python,
	// OpenAI, Docker): products and places, not words ("Create", "Basic").
	proper termSet
}

// buildAnswerer prepares the sections of the passages for answering: the lexicon's terms,
// then each docs page's sections (order: the pages in the index's order; pageOrder: their
// order in the docs) with their units.
func (ix *Index) buildAnswerer(secs map[string][]section, order []string, pageOrder map[string]int) {
	a := &answerer{sections: map[string]*docSection{}, byPage: map[string][]*docSection{},
		known: termSet{}, syn: map[string][]string{}, rawSyn: map[string][]string{}, extraStp: termSet{}, irreg: map[string]string{},
		secsByTerm: map[string][]*docSection{}, unitsByTerm: map[string][]*unit{}, concepts: termSet{}, measures: termSet{}}
	ix.addLexicon(a, lex)
	ix.ans = a // terms() reads irreg and extraStp from here on
	starts := slices.Clone(order)
	slices.SortStableFunc(starts, func(x, y string) int { return pageOrder[x] - pageOrder[y] })
	for _, path := range starts {
		if p := ix.byID[path]; p != nil {
			a.starts = append(a.starts, p)
		}
	}
	var texts []string // every heading and unit, for the names the docs write capitalised
	for _, path := range order {
		for _, s := range secs[path] {
			texts = ix.addSection(a, path, s, texts)
		}
	}
	a.proper = ix.properNames(texts)
}

// addLexicon adds the terms of the lexicon's words to a: units of measure, irregular forms,
// words of asking, and synonyms (each word of a group standing for the others, one-way
// synonyms, the stop words that carry meaning).
func (ix *Index) addLexicon(a *answerer, l *lexicon) {
	one := func(w string) string {
		if ts := ix.stems.Analyze([]byte(w)); len(ts) > 0 {
			return string(ts[0].Term)
		}
		return ""
	}
	for _, w := range l.measures {
		if t := one(w); t != "" {
			a.measures[t] = true
		}
	}
	for _, ir := range l.irregular {
		if f, t := one(ir.word), one(ir.alts[0]); f != "" && t != "" && f != t {
			a.irreg[f] = t
		}
	}
	for _, w := range l.asking {
		if t := one(w); t != "" {
			a.extraStp[t] = true
		}
	}
	for _, g := range l.synonyms {
		var ts []string
		for _, w := range g {
			for _, t := range ix.stems.Analyze([]byte(w)) {
				if !slices.Contains(ts, string(t.Term)) {
					ts = append(ts, string(t.Term))
				}
			}
		}
		for _, t := range ts {
			for _, o := range ts {
				if o != t && !slices.Contains(a.syn[t], o) {
					a.syn[t] = append(a.syn[t], o)
				}
			}
		}
	}
	for _, ow := range l.oneWay {
		from := one(ow.word)
		for _, alt := range ow.alts {
			if t := one(alt); t != "" && from != "" && !slices.Contains(a.syn[from], t) {
				a.syn[from] = append(a.syn[from], t)
			}
		}
	}
	for _, rs := range l.stopSynonyms {
		for _, alt := range rs.alts {
			if t := one(alt); t != "" {
				a.rawSyn[rs.word] = append(a.rawSyn[rs.word], t)
			}
		}
	}
}

// addSection adds a section of the page at path, with its units, to a and its term
// indexes; it returns texts with the section's heading and units appended.
func (ix *Index) addSection(a *answerer, path string, s section, texts []string) []string {
	url := path
	if s.anchor != "" {
		url += "#" + s.anchor
	}
	p := ix.byID[url]
	if p == nil {
		return texts
	}
	ds := &docSection{passage: p, context: ix.termSetOf(ix.terms(p.PageTitle + " " + p.Heading)),
		title: ix.termSetOf(ix.terms(p.PageTitle)), reference: referenceHeading.MatchString(p.Heading)}
	for t := range ds.context {
		a.known[t] = true
		a.concepts[t] = true
	}
	ctxBySub := map[string]termSet{}
	texts = append(texts, p.Heading)
	for _, us := range s.units {
		texts = append(texts, us.text)
		seq := ix.terms(us.text)
		if len(seq) == 0 {
			continue
		}
		// A unit's heading path: the page title, the heading and its sub heading.
		ctx := ctxBySub[us.sub]
		if ctx == nil {
			ctx = termSet{}
			for t := range ds.context {
				ctx[t] = true
			}
			for t := range ix.termSetOf(ix.terms(us.sub)) {
				ctx[t] = true
				a.known[t] = true
			}
			ctxBySub[us.sub] = ctx
		}
		u := ix.newUnit(ds, us, seq, ctx)
		ds.units = append(ds.units, u)
		a.units++
		for t := range u.terms {
			a.unitsByTerm[t] = append(a.unitsByTerm[t], u)
			a.known[t] = true
		}
	}
	a.sections[url] = ds
	a.byPage[path] = append(a.byPage[path], ds)
	held := termSet{}
	for t := range ds.context {
		held[t] = true
	}
	for _, u := range ds.units {
		for t := range u.terms {
			held[t] = true
		}
	}
	for t := range held {
		a.secsByTerm[t] = append(a.secsByTerm[t], ds)
	}
	return texts
}

// newUnit is the next unit of ds, from us, whose terms are seq, under the heading path
// ctx: its terms (with the parts of its names, "format" for a unit stating one, the stop
// words that carry meaning as "~word"), the sentence it continues, the API resource it is
// about, and the kinds of fact it holds.
func (ix *Index) newUnit(ds *docSection, us unitSrc, seq []string, ctx termSet) *unit {
	u := &unit{sec: ds, idx: len(ds.units), text: us.text, kind: us.kind, terms: ix.termSetOf(seq), ctx: ctx,
		seq: ix.withParts(seq), words: len(strings.Fields(us.text)), codes: strings.Count(us.text, "`") / 2,
		quantity: quantity.MatchString(us.text), choices: choices.MatchString(us.text), body: jsonBody.MatchString(us.text), digit: digit.MatchString(us.text), imperative: imperative(us.text),
		status: statusText.MatchString(us.text), format: formatText.MatchString(us.text), location: locationText.MatchString(us.text)}
	// A unit stating a format ("Timestamps are ISO 8601") is about a format, whether or
	// not it says the word.
	if u.format {
		for _, t := range ix.terms("format") {
			u.terms[t] = true
		}
	}
	// A stop word that means something in a question ("down") matches itself.
	u.raw = ix.rawWords(us.text)
	u.rawSet = termSet{}
	for _, w := range u.raw {
		u.rawSet[w] = true
		if _, ok := ix.ans.rawSyn[w]; ok {
			u.terms["~"+w] = true
		}
	}
	// The words of a CamelCase name count too: RateLimit-Policy is about rate limits.
	for _, w := range camelWord.FindAllString(us.text, -1) {
		for _, part := range camelPart.FindAllString(w, -1) {
			for _, t := range ix.terms(part) {
				u.terms[t] = true
			}
		}
	}
	if n := len(ds.units); n > 0 && continues(us.text) && us.kind == kindSentence && ds.units[n-1].kind == kindSentence {
		u.prev = ds.units[n-1].terms
	}
	u.leaves = ix.pathLeaves(us.text)
	if len(u.leaves) == 0 {
		u.leaves = ix.pathLeaves(ds.passage.Heading)
	}
	return u
}

// withParts is a unit's terms in order with the parts of each snake_case name after it, so
// that a question's "delivery type" is the pair of words `delivery_type` is made of.
func (ix *Index) withParts(seq []string) []string {
	out := make([]string, 0, len(seq))
	for _, t := range seq {
		out = append(out, t)
		out = append(out, ix.nameParts(t)...)
	}
	return out
}

// referenceHeading is the heading of a section that describes an object or shows an example.
var referenceHeading = regexp.MustCompile(`^(The .+ object|Example\b.*)$`)

// apiRoute is an API path as the docs write it.
var apiRoute = regexp.MustCompile(`/api/v[12](?:/[A-Za-z0-9_{}.-]+)+`)

// pathLeaves are the terms of the last segment, not a {parameter}, of each API path in s.
func (ix *Index) pathLeaves(s string) []string {
	var out []string
	for _, p := range apiRoute.FindAllString(s, -1) {
		segs := strings.Split(p, "/")
		for i := len(segs) - 1; i >= 3; i-- {
			if seg := segs[i]; seg != "" && !strings.HasPrefix(seg, "{") {
				for _, t := range ix.terms(seg) {
					if !slices.Contains(out, t) {
						out = append(out, t)
					}
				}
				break
			}
		}
	}
	return out
}

// Sections are the sections of a docs page with a heading, in page order (nil for a page
// that is not a docs page).
func (ix *Index) Sections(path string) []Passage {
	var out []Passage
	for _, s := range ix.ans.byPage[path] {
		if s.passage.Heading != "" {
			out = append(out, *s.passage)
		}
	}
	return out
}

// idf is the rarity of a term across the units: high for a term few units have, highest
// for one none has.
func (a *answerer) idf(t string) float64 {
	return math.Log((float64(a.units) + 1) / (float64(len(a.unitsByTerm[t])) + 0.5))
}

var (
	defaults = regexp.MustCompile(`(?i)\bdefaults? (to|is)\b|\bdefault (\x60|\d)`)
	jsonBody = regexp.MustCompile("`\\{\"[^`]*\\}`")
	choices  = regexp.MustCompile("`[^`]+`(?:, `[^`]+`)*,? or `[^`]+`")
	digit    = regexp.MustCompile(`\d`)
	// statusText is an HTTP status or a snake_case error code in code.
	statusText = regexp.MustCompile("\\b[1-5][0-9][0-9]\\b|`[a-z]+_[a-z_]+`")
	// formatText is a format as the docs write one: a pattern of capitals (`HH:MM`,
	// `MM-DD-YYYY`) or a standard (ISO 8601, RFC 3339, E.164); not an example body.
	// locationText is a path or URL in code: what "where" asks for.
	locationText = regexp.MustCompile("`(?:/|https?://|\\{base)[^`]*`")
	formatText   = regexp.MustCompile("`[A-Z]{2,4}(?:[-:/.][A-Z]{2,4})+`|\\b(?:ISO \\d+|RFC \\d+|E\\.164|UTF-8|base64|application/[a-z-]+)")
	// quantity is an amount with its unit: what "how long", "how many" and "what is the
	// limit" ask for; a port (`:8080`) is the amount "which port" asks for.
	quantity = regexp.MustCompile(`(?i)\b\d[\d,.]*\s*(ms|seconds?|minutes?|hours?|days?|weeks?|months?|years?|requests?|operations?|attempts?|characters?|bytes?|KiB|MiB|items?|times?|per\b)|\b(per (second|minute|hour|day)|\d+ to \d+|at most \d|default(s)? (to )?\S*\d)|\b(default|maximum|minimum)\b[^.;\d]{0,16}\d|\B:\d{2,5}\b`)
)

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

func continues(s string) bool { return continuation.MatchString(s) }

// codeSpan is a span of code in the docs' text: its words are names, written as code.
var codeSpan = regexp.MustCompile("`[^`]*`")

// wordToken is a word of the docs' prose.
var wordToken = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`)

// properNames returns the terms of the words that texts write capitalised and never in
// lower case, outside code: the names of products, companies and places.
func (ix *Index) properNames(texts []string) termSet {
	capital, lower := map[string]bool{}, map[string]bool{}
	for _, text := range texts {
		for _, w := range wordToken.FindAllString(codeSpan.ReplaceAllString(text, " "), -1) {
			switch {
			case w == strings.ToLower(w):
				lower[w] = true
			case w[0] >= 'A' && w[0] <= 'Z' && strings.ToUpper(w) != w:
				capital[strings.ToLower(w)] = true
			}
		}
	}
	set := termSet{}
	for w := range capital {
		if lower[w] {
			continue
		}
		for _, t := range ix.terms(w) {
			set[t] = true
		}
	}
	return set
}
