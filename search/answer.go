package search

import (
	"cmp"
	"context"
	"maps"
	"math"
	"net/netip"
	"regexp"
	"slices"
	"strings"
)

// Question answering over the documentation passages. Build splits every docs page into
// sections once (goldmark, see parseMarkdown) and each section into units: the sentences of
// its paragraphs, its list items and its table rows (rendered with their column names).
// A question retrieves its passages (BM25 over heading, page title and text, headings
// weighted, with the synonyms a docs reader uses), joined by the few sections whose best
// unit scores highest over the whole docs (withCoveringSections: BM25 misses a sentence of
// a long section); every unit of those sections is scored
// by the share of the question's content words (weighted by rarity across the docs) it
// holds, its heading path counting for less, plus the passage's retrieval score. The best
// units are the answer, quoted as written, with their sections as sources. When the best
// unit holds too little of the question (a calibrated threshold, see minCoverage), the
// answer is that the docs do not cover it, with the nearest sections: a confident wrong
// sentence is worse than "not found". Terms are the index's own analyzer's (English
// stemming, stop words removed), so retrieval and answering agree on what a word is.
//
// Beside the best unit, the answer quotes what often holds the fact when the best unit
// only names the topic: the best unit of the runner-up section, a unit holding a question
// word the answer lacks, and a unit holding the kind of fact asked (an amount, a name, a
// status, a format). Words the docs never use weigh half (they match nothing anywhere), and
// a question mostly in such words is declined unless a unit matches it very well.

// AnswerPassages is how many passages an answer is drawn from. BM25 ranks a long section
// (a table of a dozen fields) low for a question matching one of its rows; the units of
// 32 passages are scored so that such a row is still found.
const AnswerPassages = 32

// NearestSections is how many sections an unanswered question is offered.
const NearestSections = 3

// Answer is a question's answer from the documentation.
type Answer struct {
	Question string
	// Answered is false when the documentation does not cover the question; then Quotes is
	// empty and Nearest holds the closest sections.
	Answered bool
	Quotes   []Quote   // the answer: units quoted as written, in answer order
	Sources  []Passage // the sections the quotes are from, best first
	Nearest  []Passage // when not answered: up to NearestSections closest sections
	// Passages are the retrieved passages, best first: what a language model may compose
	// an answer from.
	Passages []Passage
}

// Quote is a sentence, list item or table row of a section, as written (Markdown code
// spans kept).
type Quote struct {
	Text string
	URL  string // the section's URL: path#anchor
}

// Text is the answer as one paragraph: the quotes joined.
// A quote that does not end a sentence (a table row, a list item) is closed with a period,
// so that quoted rows do not run into one another.
func (a Answer) Text() string {
	parts := make([]string, len(a.Quotes))
	for i, q := range a.Quotes {
		parts[i] = q.Text
		if i < len(a.Quotes)-1 && q.Text != "" && !strings.ContainsAny(q.Text[len(q.Text)-1:], ".!?:;") {
			parts[i] += "."
		}
	}
	return strings.Join(parts, " ")
}

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

// "To Do" is two stop words to an English analyzer; the docs' name of the resource is
// made one word, todo, of the same length (so that match offsets stay right). Questions
// write it in any case, as "to do", "to-do" or "todo", but "what to do" is not the resource.
// "To Do's" becomes "todo's", which the analyzer takes as todo: not todo and a word "s".
var (
	toDoDocs     = regexp.MustCompile(`\b(?:To[ -]Do|to-do)('s|s?)\b`)
	toDoQuestion = regexp.MustCompile(`(?i)(^|\b(?:what|how|want|need|have|nothing|something|anything|things)\s+)?\bto[ -]do('s|s?)\b`)
)

func joinToDo(s string) string {
	if strings.Contains(s, "_to_do") {
		// A tool's name (`create_to_do`): its parts are create and todo, not create alone.
		s = toDoName.ReplaceAllString(s, "_todo$1 ")
	}
	if !strings.Contains(s, "To") && !strings.Contains(s, "to-do") {
		return s
	}
	return toDoDocs.ReplaceAllString(s, "todo$1 ")
}

var toDoName = regexp.MustCompile(`_to_do(s?)\b`)

// phrases are a question's words for one word of the docs, matched as whole words in any
// case ("not ready" is not "not read" and stays as it is).
var phrases = newPhraseMap(map[string]string{
	"how far back": "how long kept",
	"text message": "SMS", "text messages": "SMS",
	"api key": "API token", "api keys": "API tokens",
	"phased out": "deprecated", "phase out": "deprecate", "phasing out": "deprecation",
	"not read": "unread",
	"twice":    "more than once",
	// An email To Do's sender is its from_email; "from" alone is a stop word.
	"from address": "from_email", "sending address": "from_email", "sender address": "from_email",
	// "Back off" is waiting before a retry, not "off".
	"back off": "backoff", "backing off": "backoff",
	"back up": "backup", "backing up": "backup", "backed up": "backup",
	// The docs sign in; a user logs in.
	"log in": "sign in", "logs in": "signs in", "logged in": "signed in", "logging in": "signing in", "log into": "sign in to",
	// "On your side" is where answerdesk is, not a side of anything.
	"on your side": " ", "on your end": " ", "on our side": " ", "on our end": " ", "on my side": " ", "on my end": " ",
	// Shorthands of operators and developers.
	"env var": "environment variable", "env vars": "environment variables", "env variable": "environment variable",
	"env variables": "environment variables", "envvar": "environment variable", "envvars": "environment variables",
	// A failed login is a failed sign-in (the page itself is /login).
	"failed login": "failed sign-in", "failed logins": "failed sign-ins", "login attempts": "sign-in attempts",
	// HTTPS is HTTP over TLS: the docs say where TLS ends.
	"https": "HTTPS TLS",
	// Trying to do something is the asker's aim, not an attempt of answerdesk's.
	"trying to": "want to", "tried to": "wanted to",
	// What an endpoint gives back is what it returns.
	"give back": "return", "gives back": "returns", "giving back": "returning", "gave back": "returned",
	// Giving up on something is its failing for good.
	"give up": "fail", "gives up": "fails", "giving up": "failing", "gave up": "failed",
	// "Too long" is time here, not the length of a text.
	"takes too long": "times out", "take too long": "time out", "taking too long": "timing out", "took too long": "timed out",
})

// phraseMap replaces whole-word phrases, the longest first where two begin at one place.
type phraseMap struct {
	re *regexp.Regexp
	to map[string]string // by the lower-case phrase
}

func newPhraseMap(to map[string]string) phraseMap {
	alts := slices.Collect(maps.Keys(to))
	slices.SortFunc(alts, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	for i, a := range alts {
		alts[i] = regexp.QuoteMeta(a)
	}
	return phraseMap{re: regexp.MustCompile(`(?i)\b(?:` + strings.Join(alts, "|") + `)\b`), to: to}
}

// Replace writes each phrase of s as the docs' words.
func (m phraseMap) Replace(s string) string {
	return m.re.ReplaceAllStringFunc(s, func(p string) string { return m.to[strings.ToLower(p)] })
}

func joinToDoQuestion(s string) string {
	s = phrases.Replace(s)
	return toDoQuestion.ReplaceAllStringFunc(s, func(m string) string {
		sub := toDoQuestion.FindStringSubmatch(m)
		if sub[1] != "" {
			return m // "what to do": the words, not the resource
		}
		return "todo" + sub[2] + " "
	})
}

// terms are the index analyzer's terms of a text, in order, with irregular verb forms
// mapped to their base ("kept" → keep) and the parts of a snake_case name added after it
// (page_size also matches "page" and "size").
func (ix *Index) terms(s string) []string {
	toks := ix.stems.Analyze([]byte(joinToDo(s)))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		term := string(t.Term)
		if ix.ans != nil {
			if b, ok := ix.ans.irreg[term]; ok {
				term = b
			}
			if ix.ans.extraStp[term] {
				continue
			}
		}
		out = append(out, term)
	}
	return out
}

func (ix *Index) termSetOf(seq []string) termSet {
	set := termSet{}
	for _, t := range seq {
		ix.addTerm(set, t)
	}
	return set
}

func (ix *Index) addTerm(set termSet, t string) {
	set[t] = true
	for _, p := range ix.nameParts(t) {
		set[p] = true
	}
}

// nameParts are the terms of the words of a snake_case term (page_size: page, size); none
// for another term.
func (ix *Index) nameParts(t string) []string {
	if !strings.Contains(t, "_") {
		return nil
	}
	var out []string
	for _, p := range strings.Split(t, "_") {
		for _, pt := range ix.stems.Analyze([]byte(p)) {
			out = append(out, string(pt.Term))
		}
	}
	return out
}

// synonymGroups are words a docs reader uses for one another; each word of a group stands
// for the others. Written as words; their terms are made with the index's analyzer.
var synonymGroups = [][]string{
	{"webhook", "webhooks", "dispatch", "dispatching", "external", "callback", "callbacks"},
	{"paginate", "pagination", "paging", "page", "page_size"},
	{"retry", "retries", "retried", "backoff", "attempt"},
	{"maximum", "max", "limit", "most", "cap", "largest", "biggest", "highest", "longest"},
	{"minimum", "min", "least", "smallest", "lowest", "shortest"},
	{"keep", "retention", "retain", "store", "ago"},
	{"expire", "expiry", "valid", "lifetime"},
	{"delete", "remove", "cancel"},
	{"require", "required", "mandatory", "need"},
	{"error", "fail", "failure"},
	{"token", "key"},
	{"signature", "sign", "signing", "verify", "authentic", "genuine", "spoof", "forge"},
	{"throttle", "rate"},
	{"allow", "accept", "permit"},
	{"identifier", "id"},
	{"single", "individual", "id"}, // "fetch a single To Do" is GET /api/v2/to-dos/{id}
	{"password", "credential"},
	{"wait", "delay"},
	{"start", "run", "begin", "leading", "prefix"},
	{"port", "addr", "listen"},
	{"instance", "instances", "process", "processes"},
	{"omit", "omitted", "leave", "default"},
	{"order", "ordered", "sort", "rank", "newest", "oldest"},
	{"contain", "hold", "include", "carry"},
	{"fetch", "get", "retrieve", "read", "download"},
	{"return", "answer", "respond", "response", "reply", "body"},
	{"format", "formats", "pattern"}, // not "form": FORM is a payload type
	{"resend", "replay"},
	{"spec", "specification", "openapi"},
	{"create", "make", "add", "generate", "mint"},
	{"length", "characters", "long"},
	{"size", "bytes"},
	{"duplicate", "deduplicate", "dedupe", "dedup", "idempotency"},
	{"channel", "origin"},
	{"text", "sms"},
	{"recurring", "repeat", "recurrence"},
	{"send", "deliver", "delivery"},
	{"endpoint", "url", "receiver"},
	{"timeout", "time-out", "times out"},
	// Words an integrator uses that the docs write otherwise (chosen as API vocabulary in
	// general, not from any one question).
	{"postgres", "postgresql"},
	{"batch", "bulk", "combine"},
	{"case", "uppercase", "lowercase", "capital", "capitals"},
	{"acknowledge", "ack", "confirm"},
	{"sample", "random", "subset"},
	{"annual", "yearly"},
	{"same", "identical"},
	{"unknown", "extra", "unexpected", "unrecognized", "unrecognised"}, // a parameter the API does not know
	{"escalate", "escalation"},
	{"information", "info"},
	{"show", "view", "display"},
	{"deprecate", "deprecated", "deprecation", "sunset", "retire", "retired", "retirement", "discontinue", "discontinued", "obsolete"},
	// Any day of the week stands for the others: the docs' examples name some of them.
	{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekday", "weekdays"},
}

// oneWaySynonyms stand for the words they name but not the other way round: "what does
// X look like" asks for a format or an example, while "which formats" is not answered by
// any sentence that gives an example.
var oneWaySynonyms = map[string][]string{
	"look":     {"format", "example"},
	"address":  {"addr"},  // the server's address; "address" is an email address too
	"reminder": {"todo"},  // integrators call a To Do a reminder; "todo" is the docs' joined name
	"terminal": {"cli"},   // "from the terminal": the command line
	"column":   {"field"}, // a data engineer's word for a field of a record
	"console":  {"cli"},
	"handle":   {"serve", "terminate"}, // "does it handle HTTPS": serve it, terminate TLS
	"register": {"add"},                // registering a domain or a number on an account is adding it
	// A web server or load balancer in front of answerdesk is its reverse proxy.
	"nginx":   {"proxy"},
	"caddy":   {"proxy"},
	"haproxy": {"proxy"},
	"traefik": {"proxy"},
	"envoy":   {"proxy"},
	"bucket":  {"allowance"},        // a rate limit's bucket is the client's allowance
	"try":     {"attempt", "retry"}, // "how many times will it try": the docs count attempts and retries
	"shell":   {"cli"},              // "from the shell": the command line
	"cli":     {"command"},          // the docs say "the command line" and name its commands
	// A sign-in's permissions are OAuth scopes; "file permissions" keep their own word.
	"permission":  {"scope"},
	"permissions": {"scope"},
}

// rawSynonyms are stop words that mean something in a question about an API.
var rawSynonyms = map[string][]string{
	"down":    {"retry", "fail", "network", "error"},
	"offline": {"retry", "fail", "network"},
	"again":   {"retry", "replay"},
	"off":     {"disable"},
}

// askingWords are the words of asking, not of the subject.
const askingWords = `tell explain describe mean meaning happen happens happened want wants please possible kind kinds
	various answerdesk one way ways thing things know will would could should shall can got gotten take takes like ask able go goes going instead actually exactly ok okay something else worried wondering
	anything issue issues`

var irregularForms = map[string]string{
	"kept": "keep", "sent": "send", "held": "hold", "taken": "take", "took": "take",
	"given": "give", "gave": "give", "found": "find", "written": "write", "wrote": "write",
	"began": "begin", "begun": "begin", "chosen": "choose", "chose": "choose", "paid": "pay",
	"lost": "lose", "shown": "show", "known": "know", "seen": "see", "ran": "run", "gone": "go",
	"broken": "break", "went": "go",
	// Porter stems "status" as statu but "statuses" as status.
	"statuses": "status",
}

// rawWords are the words of a text, lower-cased, stop words kept.
func (ix *Index) rawWords(s string) []string {
	toks := ix.words.Analyze([]byte(s))
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}

// buildAnswerer prepares the sections of the passages for answering.
func (ix *Index) buildAnswerer(secs map[string][]section, order []string, pageOrder map[string]int) {
	a := &answerer{sections: map[string]*docSection{}, byPage: map[string][]*docSection{},
		known: termSet{}, syn: map[string][]string{}, rawSyn: map[string][]string{}, extraStp: termSet{}, irreg: map[string]string{},
		secsByTerm: map[string][]*docSection{}, unitsByTerm: map[string][]*unit{}, concepts: termSet{}, measures: termSet{}}
	one := func(w string) string {
		if ts := ix.stems.Analyze([]byte(w)); len(ts) > 0 {
			return string(ts[0].Term)
		}
		return ""
	}
	for _, w := range strings.Fields(measureWords) {
		if t := one(w); t != "" {
			a.measures[t] = true
		}
	}
	var texts []string // every heading and unit, for the names the docs write capitalised
	for from, to := range irregularForms {
		if f, t := one(from), one(to); f != "" && t != "" && f != t {
			a.irreg[f] = t
		}
	}
	for _, w := range strings.Fields(askingWords) {
		if t := one(w); t != "" {
			a.extraStp[t] = true
		}
	}
	for _, g := range synonymGroups {
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
	for w, alts := range oneWaySynonyms {
		from := one(w)
		for _, alt := range alts {
			if t := one(alt); t != "" && from != "" && !slices.Contains(a.syn[from], t) {
				a.syn[from] = append(a.syn[from], t)
			}
		}
	}
	for w, alts := range rawSynonyms {
		for _, alt := range alts {
			if t := one(alt); t != "" {
				a.rawSyn[w] = append(a.rawSyn[w], t)
			}
		}
	}
	ix.ans = a // terms() reads irreg and extraStp from here on
	starts := slices.Clone(order)
	slices.SortStableFunc(starts, func(x, y string) int { return pageOrder[x] - pageOrder[y] })
	for _, path := range starts {
		if p := ix.byID[path]; p != nil {
			a.starts = append(a.starts, p)
		}
	}
	for _, path := range order {
		for _, s := range secs[path] {
			url := path
			if s.anchor != "" {
				url += "#" + s.anchor
			}
			p := ix.byID[url]
			if p == nil {
				continue
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
					if _, ok := a.rawSyn[w]; ok {
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
					u.leaves = ix.pathLeaves(p.Heading)
				}
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
		}
	}
	a.proper = ix.properNames(texts)
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

// question is a question prepared for scoring.
type question struct {
	terms   []qterm
	total   float64
	bigrams [][2]string
	number  bool        // asks for an amount, a duration or a limit
	code    bool        // asks for a name: a header, code, variable, flag, parameter
	howTo   bool        // asks how to do something
	list    bool        // asks for the values of something
	returns bool        // asks what an endpoint answers: a body, a status
	omitted bool        // asks what holds when something is left out: its default
	status  bool        // asks for an HTTP status or an error: "what do I get", "which error"
	format  bool        // asks for a format: "what format", "what does X look like"
	where   bool        // asks where: a page, a path, a URL
	raw     [][2]string // pairs of neighbouring words as written, one of them not a stop word
	paths   []*regexp.Regexp
	synQ    []string
	// unknownFull is the weight of the question's words the docs never use, and fullTotal
	// the weight of all its words, before unknown words are discounted: a question mostly
	// in words the docs never use is about something else.
	unknownFull, fullTotal float64
	known                  int     // terms the docs use, or have a synonym for
	isConcept              termSet // its terms of the docs' headings (answerer.concepts)
	measure                termSet // its terms that are units of measure (answerer.measures)
	// asked is the terms of its asking sentences, when it has sentences of context too
	// (askedTerms); nil when every term is asked.
	asked map[string]bool
}

// qterm is a content word of a question: its term, the terms that may stand for it in the
// docs, and its weight (its rarity across the docs).
type qterm struct {
	term   string
	alts   []string
	weight float64
}

// match is how much of the term's weight a set of terms holds: all of it for the word
// itself, most of it for a synonym.
func (t qterm) match(set termSet) float64 {
	if set[t.term] {
		return t.weight
	}
	for _, a := range t.alts {
		if set[a] {
			return 0.8 * t.weight
		}
	}
	return 0
}

var (
	httpStatus      = regexp.MustCompile(`^[1-5][0-9][0-9]$`)
	numberQuestion  = regexp.MustCompile(`\b(how (long|many|much|often|big|large|soon)|what (is|are) the (max|maximum|min|minimum|default|limit|size|length|range|port|version)|which port|(what|which) (\w+ )?version|at most|at least|limit|limits|maximum|minimum|default|cap|time-?outs?|durations?|lifetime|retention|ttl|how far back)\b`)
	howToQuestion   = regexp.MustCompile(`(^\s*(how (do|can|should|would|could) (i|we|you|one)|how to)|what (should|do|can) (i|we) do)\b`)
	codeQuestion    = regexp.MustCompile(`\b(which|what) (\w+ )?(header|headers|code|codes|variable|variables|flag|flags|parameter|parameters|field|fields|prefix|status|command|format|scope|scopes|error)\b`)
	omittedQuestion = regexp.MustCompile(`(?i)\b(leave|leaves|left|leaving) ((?P<left>it|them|that|this|\w+) )?out\b|\b(omit|omits|omitted|(don't|do not|without) (send|set|give|pass|specify|sending|setting|giving|passing|specifying))\b`)
	returnsQuestion = regexp.MustCompile(`\bwhat (does|do|will|would) .*\b(return|answer|respond|reply)\b`)
	statusQuestion  = regexp.MustCompile(`\b((what|which) (\w+ )?(status|error|response|code)|what (do|does|will|would) (i|we|it|you) (get|see|receive)|what comes back|what (is|gets) returned|(is|does) it (fail|an error))\b` +
		// "Do I get a 403?", "will it give me forbidden?": a status named as the answer supposed.
		`|\b(get|give|gives|be|return|returns|answer|answers) (me |us )?(a |an )?([1-5][0-9][0-9]|forbidden|unauthorized)\b`)
	whereQuestion  = regexp.MustCompile(`^\s*where\b|\b(which|what) (url|page|path|address)\b`)
	formatQuestion = regexp.MustCompile(`\b((what|which) (\w+ )?formats?|in what format|look like)\b`)
	listQuestion   = regexp.MustCompile(`\b(which|what) (\w+ )?(values|types|statuses|options|formats|frequencies|channels|headers|scopes|cycles|variables|fields|codes|methods|filters|parameters|servers|tools|endpoints|operations)\b`)
	// apiPath is a path written in a question ("/api/v2/me"): its words may be stop words,
	// so the path itself is matched.
	apiPath       = regexp.MustCompile(`/[a-z0-9_.{}-]+(?:/[a-z0-9_.{}-]+)+|/[a-z][a-z0-9_-]*[a-z0-9]`)
	flagName      = regexp.MustCompile(`(?:^|[\s(\x60"'])(--[a-z][a-z0-9-]*[a-z0-9])`)
	askingPhrases = regexp.MustCompile(`(?i)\bhow (long|many|much|often|big|large|soon|far)\b`)
)

// askedFor is what an asking phrase asks about, as a docs word: "how large" asks for a
// size, "how often" for a frequency; the others ("how long", "how many") say only that an
// amount is asked for, which numberQuestion sees.
func askedFor(phrase string) string {
	switch strings.ToLower(strings.Fields(phrase)[1]) {
	case "large", "big":
		return " size "
	case "often":
		return " frequency "
	}
	return " "
}

func (ix *Index) prepare(text string) question {
	a := ix.ans
	var q question
	text = strings.ToValidUTF8(text, " ")
	text = firstChars(text, maxQueryChars)
	seq := ix.questionTerms(text)
	seen := termSet{}
	add := func(term string, alts []string, w float64) {
		seen[term] = true
		q.terms = append(q.terms, qterm{term: term, alts: alts, weight: w})
		q.total += w
	}
	// The asking sentences, when there are sentences of context too: they alone name a path
	// or flag to answer about, and the context's words weigh less.
	var named string
	q.asked, named = ix.askedTerms(text)
	for _, t := range seq {
		set := termSet{}
		ix.addTerm(set, t)
		for p := range set {
			if seen[p] {
				continue
			}
			w := a.idf(p)
			if q.asked != nil && !q.asked[t] {
				w *= contextWeight
			}
			if !a.known[p] && len(a.syn[p]) > 0 {
				w = a.idf(a.syn[p][0]) // a synonym's word: as rare as the docs' word
			}
			if p != t {
				w *= 0.5 // a part of a compound word counts half
			}
			q.fullTotal += w
			if a.known[p] || len(a.syn[p]) > 0 {
				q.known++
			}
			if a.measures[p] {
				if q.measure == nil {
					q.measure = termSet{}
				}
				q.measure[p] = true
			}
			if a.concepts[p] {
				if q.isConcept == nil {
					q.isConcept = termSet{}
				}
				q.isConcept[p] = true
			}
			if !a.known[p] && len(a.syn[p]) == 0 {
				q.unknownFull += w
				w *= unknownWeight
			}
			add(p, a.syn[p], w)
		}
	}
	// An HTTP status stands for its class too: the docs say "5xx answers are retried".
	for _, t := range seq {
		if httpStatus.MatchString(t) {
			class := t[:1] + "xx"
			for i := range q.terms {
				if q.terms[i].term == t && !slices.Contains(q.terms[i].alts, class) {
					q.terms[i].alts = append(q.terms[i].alts, class)
					if !a.known[t] {
						q.total -= q.terms[i].weight
						q.terms[i].weight = a.idf(class)
						q.total += q.terms[i].weight
					}
				}
			}
		}
	}
	// Stop words that carry meaning in a question about an API ("my endpoint is down").
	for _, t := range ix.words.Analyze([]byte(strings.ToLower(text))) {
		if alts, ok := a.rawSyn[string(t.Term)]; ok && !seen["~"+string(t.Term)] {
			w := 0.0
			for _, alt := range alts {
				w = max(w, a.idf(alt))
			}
			add("~"+string(t.Term), alts, w)
			q.synQ = append(q.synQ, alts...)
		}
	}
	// A synonym that is itself a word of the question does not count twice.
	for i := range q.terms {
		var alts []string
		for _, s := range q.terms[i].alts {
			if !seen[s] {
				alts = append(alts, s)
			}
		}
		q.terms[i].alts = alts
	}
	slices.SortFunc(q.terms, func(a, b qterm) int { return strings.Compare(a.term, b.term) })
	for i := 0; i+1 < len(seq); i++ {
		q.bigrams = append(q.bigrams, [2]string{seq[i], seq[i+1]})
	}
	// A path or flag of the context ("I'm getting 429s from /api/v1/search.") says where,
	// not what is asked: only the asking sentences name the unit to answer from.
	for _, p := range apiPath.FindAllString(strings.ToLower(named), 4) {
		q.paths = append(q.paths, regexp.MustCompile(regexp.QuoteMeta(p)+`(?:[^a-z0-9_/-]|$)`))
	}
	// A command-line flag written in a question ("--base-url") is matched whole too: its
	// words are common ("base", "url") and the flag is what the question is about.
	for _, m := range flagName.FindAllStringSubmatch(strings.ToLower(named), 4) {
		q.paths = append(q.paths, regexp.MustCompile(regexp.QuoteMeta(m[1])+`(?:[^a-z0-9_-]|$)`))
	}
	rw := ix.rawWords(text)
	for i := 0; i+1 < len(rw); i++ {
		content := func(w string) bool { _, syn := a.rawSyn[w]; return syn || len(ix.terms(w)) > 0 }
		if content(rw[i]) || content(rw[i+1]) {
			q.raw = append(q.raw, [2]string{rw[i], rw[i+1]})
		}
	}
	lower := strings.ToLower(text)
	q.number = numberQuestion.MatchString(lower)
	q.code = codeQuestion.MatchString(lower)
	q.howTo = howToQuestion.MatchString(lower)
	q.list = listQuestion.MatchString(lower)
	q.returns = returnsQuestion.MatchString(lower)
	q.omitted = omittedQuestion.MatchString(lower)
	q.status = statusQuestion.MatchString(lower)
	q.format = formatQuestion.MatchString(lower)
	q.where = whereQuestion.MatchString(lower)
	return q
}

// names reports whether the question holds one of the terms.
func (q question) names(terms []string) bool {
	return slices.ContainsFunc(terms, func(l string) bool {
		return slices.ContainsFunc(q.terms, func(t qterm) bool { return t.term == l })
	})
}

// asks reports whether the question's asking sentences hold one of the terms: a resource
// named only in its context ("I'm getting 429s from /api/v1/search.") is not what it asks about.
func (q question) asks(terms []string) bool {
	if q.asked == nil {
		return q.names(terms)
	}
	return slices.ContainsFunc(terms, func(t string) bool { return q.asked[t] })
}

// scored is a unit with its score for a question.
type scored struct {
	u        *unit
	score    float64
	coverage float64 // share of the question's weight the unit (and, for less, its heading path) holds
	own      float64 // share held by the unit's own words
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

// Weights of a unit's score.
const (
	contextWeight    = 0.75 // a word only in a sentence of context, against one in the asking sentence
	unknownWeight    = 0.5  // a word the docs never use: it matches nothing, so it weighs less on every unit
	ctxWeight        = 0.5  // a question word in the heading path only, against one in the unit
	headWeight       = 0.25 // the share of the question in the unit's heading path
	titleWeight      = 0.4  // the share of the question in the unit's page title: the page's topic
	retrievalWeight  = 0.15 // the passage's retrieval score, relative to the best passage's
	leadInPenalty    = 0.05 // a sentence ending in ":" introduces what follows
	noAmountPenalty  = 0.1  // a unit without a number, for a question asking for an amount
	resourceBonus    = 0.15 // a unit about the API resource the question names
	pageWeight       = 0.2  // the page's share of the retrieved passages' score, relative to the best page's
	referencePenalty = 0.1  // a unit of an object's or example's section, for a "how do I" question
	kindBonus        = 0.08 // a unit holding the kind of fact asked: a status for "which error", a format for "what format"
)

func (q question) score(u *unit, retrieval float64) scored {
	if q.total == 0 {
		return scored{u: u}
	}
	var own, ctx, head, title float64
	for _, t := range q.terms {
		h := t.match(u.ctx)
		head += h
		title += t.match(u.sec.title)
		if m := t.match(u.terms); m > 0 {
			own += m
		} else {
			ctx += max(h, t.match(u.prev))
		}
	}
	s := scored{u: u, own: own / q.total}
	s.coverage = (own + ctxWeight*ctx) / q.total
	// A unit under a heading about the question is on topic; the same words in a sentence
	// under another heading are often about something else ("batch operations count
	// toward the rate limit").
	s.score = s.coverage + headWeight*head/q.total + titleWeight*title/q.total + retrievalWeight*retrieval
	s.score += math.Min(0.15, 0.06*float64(pairsIn(q.bigrams, u.seq, u.terms)))
	// The question's words in the same order as written ("endpoint is down").
	s.score += math.Min(0.1, 0.04*float64(pairsIn(q.raw, u.raw, u.rawSet)))
	if q.namesPathOf(u) {
		s.score += 0.15
	}
	// For an amount, a unit about the very resource the question names ("the default
	// page size of the To Do list": `GET /api/v2/to-dos`) beats one about another list
	// that merely mentions it: each list has its own defaults and limits.
	if q.number && u.quantity && q.asks(u.leaves) {
		s.score += resourceBonus
	}
	if q.list && u.codes >= 3 {
		s.score += 0.08 // "which values ...": a unit that lists names
	}
	if q.omitted && defaults.MatchString(u.text) {
		s.score += 0.1 // "when I leave it out": what it defaults to
	}
	if q.returns && u.body {
		s.score += 0.1 // the body it returns, as written, beats a sentence that it answers
	}
	if q.list && u.choices {
		s.score += 0.15 // ... and better, names them as the alternatives they are
	}
	if q.number {
		switch {
		case u.quantity:
			s.score += 0.12
		case u.digit:
			s.score += 0.04
		default:
			// "The page size used (your page_size, or the list's default)" names the
			// thing asked about but not its amount: a confident answer without the fact.
			s.score -= noAmountPenalty
		}
	}
	if q.code && strings.Contains(u.text, "`") {
		s.score += 0.05
	}
	if q.howTo && u.imperative {
		s.score += 0.2
	}
	// "How do I ..." asks for an operation; a section describing an object's fields or
	// showing an example names the words of an operation without saying how.
	if q.howTo && u.sec.reference {
		s.score -= referencePenalty
	}
	// Long sentences match many words by their length alone.
	switch {
	case u.words < 5 && u.kind == kindSentence:
		s.score -= 0.1
	case u.words > 40:
		s.score -= math.Min(0.2, 0.003*float64(u.words-40))
	}
	if strings.HasSuffix(u.text, ":") {
		s.score -= leadInPenalty // a lead-in to a list says little alone
	}
	return s
}

// Answer thresholds, calibrated on the tuning sets of the evaluation (testdata/qa:
// tune.json, dev2.json, dev3.json; TestCalibDump writes the features they were set from): the best unit must hold at least minCoverage of the question's
// weight (its heading path counting 0.4), and at least minOwn by its own words.
const (
	minCoverage = 0.45
	minOwn      = 0.2
	// A section whose heading path and units together hold minSectionCoverage of the
	// question answers with its best unit, when that holds at least minOwnInSection by its
	// own words.
	minSectionCoverage = 0.7
	minOwnInSection    = 0.15
	// A unit holding minCoverageUnderHeading of the question answers under a heading path
	// that holds minHeadingCoverage of it. Calibrated on tune.json and dev2.json: the
	// off-topic questions' best units reach at most 0.32 of their heading.
	minCoverageUnderHeading = 0.3
	minHeadingCoverage      = 0.35
	// Calibrated on tune, dev2 and dev3 (32 off-topic questions): a best unit needs
	// minWeakScore whatever share of the question it holds, one answering by its heading
	// minHeadingScore. The off-topic questions' best units score at most 0.76 and 0.81
	// (0.807 for "port my phone number" once 32 passages are scored, hence 0.82).
	minWeakScore    = 0.82
	minHeadingScore = 0.85
	// minStrongScore was 0.9; once questions with one docs word among unknown ones are
	// declined by that alone, the off-topic questions of the four tuning sets that hold
	// enough by their own words reach at most 0.811 ("cancel my subscription").
	minStrongScore = 0.85
	// minConcepts: a question naming this many terms of the docs' headings is about the docs,
	// when its best unit holds minConceptsHeld of them (by its own words or its heading's)
	// and scores minConceptsScore. Calibrated on the six tuning sets (dev7 added): the
	// questions answered right this way hold two or more and score at least 0.57; dev7's
	// two off-topic questions that got this far held one, and two scoring 0.54 ("port our
	// existing main line", through the server's --port).
	minConcepts      = 3
	minConceptsHeld  = 2
	minConceptsScore = 0.55
	// minThingScore: a question naming a thing by a word the docs never use ("last month's
	// invoice") answers only from a unit ranking this well, whatever else it holds: of the
	// tuning sets' questions that name one, those answered right rank 0.93 and up, and an
	// off-topic one about invoices reached 0.78 through "service plan" (pricing).
	minThingScore = 0.9
	nearTie       = 0.9
	maxAnswerUnit = 4
	maxExtraRows  = 2    // matching table rows or list items added to the answer
	siblingShare  = 0.55 // a unit of the best section this near the best joins the answer
	// siblingOwnShare: such a unit may hold less of the question than minOwn by its own
	// words if it holds this share of what the best unit holds: a long question spreads
	// its weight, and the retry policy's schedule row holds 0.19 of "will answerdesk retry
	// the dispatch, and on what schedule?" beside the best row's 0.30.
	siblingOwnShare = 0.6
	// completionShare: a unit of another section holding the kind of thing asked joins an
	// answer that lacks it from this near the best.
	completionShare = 0.6
	maxAnswerLen    = 1200 // characters
	shortSection    = 800  // characters: a section this short answers whole
	// fillLen: once everything else has joined, one more matching row or item fills an
	// answer up to this many characters.
	fillLen       = 1000
	runnerUpShare = 0.7 // the best unit of another section this near the best joins the answer
	maxRunnerUps  = 2   // sections besides the best one whose best unit may join so
	// maxRunnerUpLooks: a runner-up is one of the next three sections, as ranked by their
	// units; one further down that merely holds the kind of fact asked is off topic.
	maxRunnerUpLooks = 3
	// pageShare, pageFillLen: a unit of another section of the best unit's page this near
	// the best joins last, within this many characters.
	pageShare   = 0.6
	pageFillLen = 1300
	// A unit holding a question word the answer lacks joins it from this near the best
	// score (at most maxCoverUnits of them, for words of at least minCoverWeight of the
	// question's weight), within maxAnswerLen but whatever the number of units quoted
	// already: a list's items use up the count while the word is in the next section. From
	// a section the answer quotes it joins at any rank.
	// coverPageShare: from a page the answer quotes already ("Booleans are written `true`
	// or `false`" ranks 0.66 of the best for "how does a boolean come out as a merge
	// variable").
	coverPageShare = 0.6
	maxCoverUnits  = 1
	// coverOtherPageShare: from a page the answer does not quote yet.
	coverOtherPageShare = 0.85
	minCoverWeight      = 0.1
	// A question half or more of whose weight is in words the docs never use answers only
	// from a unit scoring minScoreMostlyUnknown, and only with two docs words or more. It
	// was 1.0 while the off-topic questions with one docs word reached 0.93 ("reset my
	// iPhone"); with those declined apart, the ones with two or more reach at most 0.795
	// ("update the credit card on file") on the four tuning sets.
	maxUnknownShare       = 0.5
	minScoreMostlyUnknown = minStrongScore
)

// conceptsHeld counts the question's terms of the docs' headings and titles that a unit
// holds by its own words or its heading path's.
func (q question) conceptsHeld(u *unit) int {
	n := 0
	for _, t := range q.terms {
		if q.isConcept[t.term] && (t.match(u.terms) > 0 || t.match(u.ctx) > 0) {
			n++
		}
	}
	return n
}

// sectionCoverage is the share of the question's weight that a section holds in its
// heading path and its units together.
func (q question) sectionCoverage(sec *docSection) float64 {
	return q.share(func(t qterm) float64 {
		m := t.match(sec.context)
		for _, u := range sec.units {
			if m == t.weight {
				break
			}
			m = max(m, t.match(u.terms))
		}
		return m
	})
}

// share is the share of the question's weight that held gives its terms.
func (q question) share(held func(qterm) float64) float64 {
	if q.total == 0 {
		return 0
	}
	sum := 0.0
	for _, t := range q.terms {
		sum += held(t)
	}
	return sum / q.total
}

// beyondHeading is the weight of the question's words a unit holds that its heading path
// does not: what the unit says of the question beyond naming its section's topic.
func (q question) beyondHeading(u *unit) float64 {
	held := 0.0
	for _, t := range q.terms {
		if t.match(u.ctx) == 0 {
			held += t.match(u.terms)
		}
	}
	return held
}

// headingCoverage is the share of the question's weight that a section's heading path
// (page title and heading) holds.
func (q question) headingCoverage(sec *docSection) float64 {
	return q.share(func(t qterm) float64 { return t.match(sec.context) })
}

// Answer answers a question from the documentation sections: the best passage's most
// relevant sentences and the table rows or list items that match, quoted as written, or
// "not covered" with the nearest sections.
func (ix *Index) Answer(ctx context.Context, text string) (Answer, error) {
	a, err := ix.answer(ctx, text, 0)
	if err != nil || a.Answered {
		return a, err
	}
	// A question whose sentences of context outweigh what it asks ("Our script replays
	// failed deliveries in bulk after our endpoint comes back online, and some replays are
	// now answered 429. How many replays are allowed?") is asked again without them. Alone,
	// its best unit must rank as no off-topic question's does (minWeakScore) whatever else
	// holds: a short question ("Can you port our existing main line over to you?") reaches
	// a section by one shared word, and one pointing back into its context ("How do I make
	// them last longer?") matches little.
	asks, ok := asking(text)
	if !ok {
		return a, nil
	}
	b, err := ix.answer(ctx, asks, minWeakScore)
	if err != nil || !b.Answered {
		return a, err
	}
	b.Question = text
	return b, nil
}

// answer answers a question whose best unit scores at least minScore.
func (ix *Index) answer(ctx context.Context, text string, minScore float64) (Answer, error) {
	// rankPassages prepares the question once for retrieval, reranking and answering.
	ps, q, err := ix.rankPassages(ctx, text, max(AnswerPassages, rerankDepth), false)
	if err != nil {
		return Answer{}, err
	}
	if len(ps) > AnswerPassages {
		ps = ps[:AnswerPassages]
	}
	out := Answer{Question: text, Passages: ps, Quotes: []Quote{}, Sources: []Passage{}, Nearest: []Passage{}}
	stems := ix.questionStems(text)
	parts, err := ix.partsPassages(ctx, stems)
	if err != nil {
		return Answer{}, err
	}
	body, err := ix.bodyPassages(ctx, stems)
	if err != nil {
		return Answer{}, err
	}
	units, ok := ix.answerUnits(q, text, minScore, ix.withCoveringSections(q, withAddedPassages(ix.withRareTermSections(q, ps), slices.Concat(parts, body))))
	if !ok {
		out.Nearest = append(out.Nearest, ps[:min(NearestSections, len(ps))]...)
		// Nothing near at all: the introductions of the first docs pages, where a reader
		// starts, rather than nothing.
		for _, p := range ix.ans.starts {
			if len(out.Nearest) == NearestSections {
				break
			}
			if !slices.ContainsFunc(out.Nearest, func(n Passage) bool { return n.URL == p.URL }) {
				out.Nearest = append(out.Nearest, *p)
			}
		}
		return out, nil
	}
	out.Answered = true
	seen := map[string]bool{}
	for _, u := range units {
		url := u.sec.passage.URL
		out.Quotes = append(out.Quotes, Quote{Text: u.text, URL: url})
		if !seen[url] {
			seen[url] = true
			src := *u.sec.passage
			for _, p := range ps {
				if p.URL == url {
					src.Score = p.Score
				}
			}
			src.Snippet = u.text
			out.Sources = append(out.Sources, src)
		}
	}
	return out, nil
}

// Sections added to the retrieved ones for a question's rarest words.
const (
	rareTerms       = 2   // the question's heaviest words looked up
	maxRareSections = 4   // a word in more sections than this is not rare enough to look up
	rarePrior       = 0.5 // such a section's retrieval score, relative to the best passage's
)

// heaviestFirst returns a copy of terms, the heaviest first (ties in question order).
func heaviestFirst(terms []qterm) []qterm {
	out := slices.Clone(terms)
	slices.SortStableFunc(out, func(a, b qterm) int { return cmp.Compare(b.weight, a.weight) })
	return out
}

// withRareTermSections adds to the retrieved passages the sections holding the question's
// rarest words. BM25 over a disjunction of every word and synonym scales a passage by the
// share of the query it matches, so the one section naming the question's most specific
// word ("SIGTERM") can rank below 32 sections that share its common words ("server").
func (ix *Index) withRareTermSections(q question, ps []Passage) []Passage {
	terms := heaviestFirst(q.terms)
	have := map[string]bool{}
	for _, p := range ps {
		have[p.URL] = true
	}
	var out []Passage
	looked := 0
	top := 0.0
	for _, p := range ps {
		top = max(top, p.bm25)
	}
	for _, t := range terms {
		if looked == rareTerms {
			break
		}
		secs := ix.ans.secsByTerm[t.term]
		if len(secs) == 0 || len(secs) > maxRareSections {
			continue
		}
		looked++
		for _, sec := range secs {
			if !have[sec.passage.URL] {
				have[sec.passage.URL] = true
				if out == nil {
					out = slices.Clone(ps)
				}
				p := *sec.passage
				p.bm25, p.Score = rarePrior*top, 0
				out = append(out, p)
			}
		}
	}
	if out == nil {
		return ps
	}
	return out
}

// withCoveringSections adds to the passages the sections, not among them, whose best unit
// scores highest for the question, with no retrieval score: BM25 ranks a sentence in a long
// section ("Timestamps are ISO 8601" among a page's first requests) beneath short sections
// sharing one common word with the question. Only units holding minOwnInSection of the
// question by their own words are scored: no other unit can answer.
func (ix *Index) withCoveringSections(q question, ps []Passage) []Passage {
	if q.total == 0 {
		return ps
	}
	have := map[string]bool{}
	for _, p := range ps {
		have[p.URL] = true
	}
	own := map[*unit]float64{}
	for _, t := range q.terms {
		got := map[*unit]float64{}
		for _, alt := range t.alts {
			for _, u := range ix.ans.unitsByTerm[alt] {
				got[u] = 0.8 * t.weight
			}
		}
		for _, u := range ix.ans.unitsByTerm[t.term] {
			got[u] = t.weight
		}
		for u, w := range got {
			if !have[u.sec.passage.URL] {
				own[u] += w
			}
		}
	}
	best := map[*docSection]float64{}
	for u, w := range own {
		if w/q.total >= minOwnInSection {
			best[u.sec] = max(best[u.sec], q.score(u, 0).score)
		}
	}
	type cand struct {
		sec   *docSection
		score float64
	}
	var cands []cand
	for sec, score := range best {
		cands = append(cands, cand{sec, score})
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.sec.passage.URL, b.sec.passage.URL))
	})
	out := slices.Clone(ps)
	for _, c := range cands[:min(coveringDepth, len(cands))] {
		p := *c.sec.passage
		p.bm25, p.Score = 0, 0
		out = append(out, p)
	}
	return out
}

// coveringDepth is how many sections withCoveringSections adds.
const coveringDepth = 3

// withAddedPassages adds passages found apart (partsPassages, bodyPassages) to the retrieved
// ones, with the prior of a rare word's section: retrieval matches a name
// (`signing_secret`) whole, so "signing secret" may not retrieve the row naming it, and
// weighs a heading match above the text saying the same.
func withAddedPassages(ps, added []Passage) []Passage {
	top := 0.0
	for _, p := range ps {
		top = max(top, p.bm25)
	}
	out := ps
	for _, p := range added {
		if slices.ContainsFunc(out, func(o Passage) bool { return o.URL == p.URL }) {
			continue
		}
		if len(out) == len(ps) {
			out = slices.Clone(ps) // the caller's slice is left as it was
		}
		p.bm25, p.Score = rarePrior*top, 0
		out = append(out, p)
	}
	return out
}

// measureWords are units of time and amount: a unit holding no word of the question but
// these ("31 days ... 3 years" for "how many paid sick days a year do your receptionists
// get?") says how long something lasts, not what the question is about.
const measureWords = `second seconds minute minutes hour hours day days week weeks month months year years per`

// calendarWords are capitalised in English but name no product: the days and months.
var calendarWords = func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(`monday tuesday wednesday thursday friday saturday sunday january february
		march april may june july august september october november december`) {
		set[w] = true
	}
	return set
}()

// properName is a capitalised word inside a sentence, or one that heads a question as its
// label ("Sidekiq: how many times does it retry?"): a product, company or place; and a
// word with a small letter before its capital ("iPhone", "eBay"), a product's anywhere.
var properName = regexp.MustCompile(`[^.?!]\s+([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b|^\s*([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*):|\b([a-z][A-Z][a-z][A-Za-z0-9]*)\b`)

// pointsBack is a pronoun that may stand for something named in an earlier sentence.
var pointsBack = regexp.MustCompile(`(?i)\b(it|its|they|them|their|theirs)\b`)

// namesUnknown reports whether the question names something the documentation never
// mentions ("... integrate with Salesforce?"): whatever else matches, the docs cannot
// answer a question about it.
func (ix *Index) namesUnknown(text string) bool {
	// A name in a sentence of context says where the asker is ("Half of our properties are
	// in Arizona."), not what is asked, unless the asking sentence points back to it ("My
	// Auth0 tokens expire after an hour. How do I make them last longer?").
	if asks, ok := asking(text); ok && !pointsBack.MatchString(asks) {
		text = asks
	}
	for _, m := range properName.FindAllStringSubmatch(text, -1) {
		name := m[1] + m[2] + m[3]
		if calendarWords[strings.ToLower(name)] {
			continue // "every Monday": a schedule, not a product
		}
		for _, t := range ix.terms(name) {
			if !ix.ans.known[t] && len(ix.ans.syn[t]) == 0 {
				return true
			}
		}
	}
	return false
}

// thingWord is a word in the place of a thing's name: the last word after an article or a
// possessive ("my invoice with", "the dashboard?", "last month's invoice for"; not "a
// misspelled merge variable"), or
// a word before "of" ("transcript of").
var thingWord = regexp.MustCompile(`(?i)\b(?:a|an|the|my|your|our|[a-z]+'s)\s+([a-z]+)(?:\s+(?:of|in|on|for|with|to|from|about|at)\b|\s*[?.,;!]|\s*$)|\b([a-z]+)\s+of\b`)

// namesUnknownThing reports whether the question names a thing by a word the documentation
// never uses ("a written transcript of a recorded call").
func (ix *Index) namesUnknownThing(text string) bool {
	for _, m := range thingWord.FindAllStringSubmatch(phrases.Replace(text), -1) {
		w := m[1] + m[2]
		for _, t := range ix.terms(w) {
			if !ix.ans.known[t] && len(ix.ans.syn[t]) == 0 {
				return true
			}
		}
	}
	return false
}

// answerUnits picks the units that answer a question from the sections of its passages;
// false when none is good enough.
func (ix *Index) answerUnits(q question, text string, minScore float64, passages []Passage) ([]*unit, bool) {
	var cands []scored
	seen := map[*docSection]bool{}
	priors := priorsOf(passages)
	for _, p := range passages {
		sec := ix.ans.sections[p.URL]
		if sec == nil || seen[sec] {
			continue
		}
		seen[sec] = true
		r, prior := priors(p)
		for _, u := range sec.units {
			sc := q.score(u, r)
			sc.score += pageWeight * prior
			cands = append(cands, sc)
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	slices.SortStableFunc(cands, byScore)
	best := cands[0]
	if debugBest != nil {
		debugBest(best)
	}
	if ix.namesUnknown(text) || ix.namesOtherProduct(text, best.u.sec) {
		return nil, false
	}
	if debugDecide != nil {
		debugDecide(q, cands)
	}
	if !debugNoDecline && (q.declines(best) || best.score < minScore || ix.namesUnknownThing(text) && (q.beyondHeading(best.u) == 0 || best.score < minThingScore)) {
		return nil, false
	}
	// The question is answerable; which unit answers it best may also weigh what the
	// decline must not: that a unit holds the kind of fact asked (a status for "which
	// error", a format for "what format") says nothing of whether the docs cover the
	// question, and would lift an off-topic question's best unit with the rest.
	reranked := false
	for i := range cands {
		if b := selectionBonus(q, cands[i].u); b != 0 {
			cands[i].score += b
			reranked = true
		}
	}
	if reranked {
		slices.SortStableFunc(cands, byScore)
		best = cands[0]
	}
	chosen := []scored{best}
	length := len(best.u.text)
	// The units after the best one when it introduces them ("...:") or the next one
	// continues it ("It", "This", ...).
	leadIn := strings.HasSuffix(best.u.text, ":")
	for u := best.u; ; {
		next := nextUnit(u)
		if next == nil {
			break
		}
		// A lead-in ("Its tools are:") is never quoted alone: the first thing it introduces
		// comes with it, however long.
		tooLong := length+len(next.text) > maxAnswerLen && !strings.HasSuffix(u.text, ":")
		if len(chosen) > maxAnswerUnit || tooLong || !leadIn && !continues(next.text) {
			break
		}
		chosen = append(chosen, scored{u: next, score: best.score})
		length += len(next.text)
		// A continuation that introduces what follows ("Its tools are:") brings it too.
		if strings.HasSuffix(next.text, ":") {
			leadIn = true
		} else if !leadIn {
			break
		}
		u = next
	}
	has := func(u *unit) bool {
		return q.number && u.quantity || (q.code || q.howTo) && u.codes > 0 || q.returns && u.body ||
			q.list && u.choices || q.status && u.status || q.format && u.format || q.where && u.location
	}
	// Two sections near-tied for the question are often two views of one fact (a field's
	// rule in a table, its behaviour in prose): the runner-up section's best unit joins
	// the answer, before the best section's further units use up its length.
	// otherAmount: a unit of another section stating the amount of another resource than
	// the one asked about, for an answer that states one already: the deliveries list's
	// "default 20" beside the To Do list's "default 10" makes a right answer wrong.
	otherAmount := func(c scored) bool {
		return q.number && c.u.sec != best.u.sec && c.u.quantity && len(c.u.leaves) > 0 && !q.names(c.u.leaves) &&
			slices.ContainsFunc(chosen, func(o scored) bool { return o.u.quantity })
	}
	others := map[*docSection]bool{best.u.sec: true}
	looked := map[*docSection]bool{}
	runnersDone := false
	// runnerUp reports whether c is the best unit of a near-tied section that joins the
	// answer as its runner-up.
	runnerUp := func(c scored) bool {
		if runnersDone || c.score < runnerUpShare*best.score || len(others) > maxRunnerUps {
			runnersDone = true
			return false
		}
		if others[c.u.sec] {
			return false
		}
		looked[c.u.sec] = true
		if len(looked) > maxRunnerUpLooks {
			runnersDone = true
			return false
		}
		// When the best unit holds the kind of fact asked (the values, the amount), a unit
		// that does not is beside the point; the next one that does may join.
		if has(best.u) && !has(c.u) {
			return false
		}
		others[c.u.sec] = true
		return c.own >= minOwn && length+len(c.u.text) <= maxAnswerLen && !otherAmount(c) &&
			!slices.ContainsFunc(chosen, func(o scored) bool { return o.u == c.u || similar(o.u, c.u) })
	}
	rows := 0
	for _, c := range cands[1:] {
		if len(chosen) >= maxAnswerUnit+maxExtraRows {
			break
		}
		if c.u.sec != best.u.sec && runnerUp(c) {
			chosen = append(chosen, c)
			length += len(c.u.text)
			continue
		}
		if c.own < minOwn && (c.u.sec != best.u.sec || c.own < siblingOwnShare*best.own) || length+len(c.u.text) > maxAnswerLen {
			continue
		}
		// A table row or list item that matches as well as the best sentence (a limits or
		// required-fields table) joins the answer; other sentences must score near the best.
		row := c.u.kind != kindSentence && c.own >= 0.8*best.own && c.score >= 0.75*best.score
		// The best section's next most relevant sentence often holds the fact the best
		// one introduces ("... signed link ..." then "... valid for 15 minutes ...").
		sibling := c.u.sec == best.u.sec && c.score >= siblingShare*best.score
		if !row && !sibling && (c.score < 0.9*best.score || len(chosen) >= maxAnswerUnit) {
			continue
		}
		if row && rows >= maxExtraRows {
			continue
		}
		if slices.ContainsFunc(chosen, func(o scored) bool { return o.u == c.u || similar(o.u, c.u) }) {
			continue
		}
		// A unit from another section must add a question word the answer lacks, unless it
		// scores within 10% of the best (nearTie) and is the first to join: either may
		// hold the fact, and the reader gets both.
		// A row or item that holds at least as much of the question by its own words as the
		// best unit is the table's or list's own statement of it (the required fields of
		// one kind of To Do): it joins without adding a word.
		strongRow := row && c.own >= best.own
		if c.u.sec != best.u.sec && !strongRow && !addsTerm(q, chosen, c.u) && (c.score < nearTie*best.score || len(chosen) > 1) {
			continue
		}
		// Nor may it bring another resource's amount to an answer that states one.
		if otherAmount(c) {
			continue
		}
		if row {
			rows++
		}
		chosen = append(chosen, c)
		length += len(c.u.text)
	}
	// A lead-in ("... with this retry policy:") is never quoted alone: of the items it
	// introduces, the one that matches the question best comes with it.
	for i := 1; i < len(chosen) && len(chosen) < maxAnswerUnit+maxExtraRows; i++ {
		u := chosen[i].u
		if !strings.HasSuffix(u.text, ":") {
			continue
		}
		var pick *scored
		for _, v := range introduced(u) {
			if slices.ContainsFunc(chosen, func(o scored) bool { return o.u == v }) {
				pick = nil
				break
			}
			if c := q.score(v, 0); pick == nil || c.score > pick.score {
				pick = &c
			}
		}
		if pick != nil {
			chosen = append(chosen, *pick)
			length += len(pick.u.text)
		}
	}
	// A chosen unit that continues another ("It means ...") brings the one it continues, and
	// the unit that continues a chosen one ("It is one of ...") comes with it.
	for i := 0; i < len(chosen) && len(chosen) < maxAnswerUnit+maxExtraRows; i++ {
		u := chosen[i].u
		in := func(x *unit) bool { return slices.ContainsFunc(chosen, func(o scored) bool { return o.u == x }) }
		if continues(u.text) && u.idx > 0 && u.kind == kindSentence {
			if prev := u.sec.units[u.idx-1]; !in(prev) {
				chosen = append(chosen, scored{u: prev, score: chosen[i].score})
			}
		}
		if next := nextUnit(u); next != nil && continues(next.text) && !in(next) {
			chosen = append(chosen, scored{u: next, score: chosen[i].score})
		}
	}
	// The answer should hold every content word of the question: a word no chosen unit has
	// ("mandatory" in "which property is mandatory when I post a message") is often the
	// one the question turns on, and the unit holding it (the row that says "Required")
	// joins the answer when it ranks near the best.
	{
		inChosen := func(x *unit) bool { return slices.ContainsFunc(chosen, func(o scored) bool { return o.u == x }) }
		// The word's unit must be on a page the answer quotes, or rank nearer the best:
		// elsewhere the word is often used in another sense ("can the server write" and
		// "write-only secrets").
		onChosenPage := func(x *unit) bool {
			return slices.ContainsFunc(chosen, func(o scored) bool { return pageOf(o.u) == pageOf(x) })
		}
		onChosenSection := func(x *unit) bool {
			return slices.ContainsFunc(chosen, func(o scored) bool { return o.u.sec == x.sec })
		}
		missing := heaviestFirst(q.terms)
		added := 0
		for _, t := range missing {
			if added >= maxCoverUnits || t.weight < minCoverWeight*q.total {
				break
			}
			if slices.ContainsFunc(chosen, func(c scored) bool { return t.match(c.u.terms) > 0 || t.match(c.u.prev) > 0 }) {
				continue
			}
			for _, c := range cands[1:] {
				// In a section the answer quotes, the word is used in the answer's sense
				// whatever the unit's rank ("To Dos and the other lists do not carry tags
				// yet." at the end of the ETag section, for polling the To Do list).
				if t.match(c.u.terms) == 0 || inChosen(c.u) || length+len(c.u.text) > maxAnswerLen ||
					!onChosenSection(c.u) && (c.score < coverPageShare*best.score ||
						!onChosenPage(c.u) && c.score < coverOtherPageShare*best.score) {
					continue
				}
				chosen = append(chosen, c)
				length += len(c.u.text)
				added++
				break
			}
		}
	}
	// The answer must hold the kind of thing asked: an amount for "how long" or "how many",
	// a name (code) for "which header" or "how do I", a body for "what does X return", the
	// alternatives for "which values". When the best unit lacks it, the best unit of its
	// section that has it joins the answer; failing that, when no chosen unit has it, one of
	// another section scoring near the best.
	in := func(x *unit) bool { return slices.ContainsFunc(chosen, func(o scored) bool { return o.u == x }) }
	if (q.number || q.code || q.howTo || q.returns || q.list || q.status || q.format || q.where) && !has(best.u) {
		// The nearest such unit after the best one: it usually goes on with the same
		// thought ("Tokens can be created with the CLI." "`answerdesk token create` ...").
		added := false
		// Failing one after it, the nearest before it ("Sign in ..., then open
		// `/settings/keys`" before "Revoke: press Revoke ...").
		after := best.u.sec.units[best.u.idx+1:]
		before := slices.Clone(best.u.sec.units[:best.u.idx])
		slices.Reverse(before)
		for _, u := range append(slices.Clone(after), before...) {
			if c := q.score(u, 0); has(u) && c.own > 0 && !in(u) {
				chosen = append(chosen, c)
				added = true
				break
			}
		}
		if !added && !slices.ContainsFunc(chosen, func(c scored) bool { return has(c.u) }) {
			for _, c := range cands[1:] {
				if has(c.u) && c.own > 0 && c.score >= completionShare*best.score && !in(c.u) {
					chosen = append(chosen, c)
					break
				}
			}
		}
	}
	// A short section is quoted whole: its few sentences are one thought, and the one
	// the question's words miss often holds the fact ("... and are not listed." after
	// "Occurrences that came due ...").
	if secLen := sectionLen(best.u.sec); secLen <= shortSection {
		for _, u := range best.u.sec.units {
			if !in(u) {
				chosen = append(chosen, scored{u: u, score: best.score})
			}
		}
	}
	// Room left once everything above has joined (up to fillLen) takes one more matching
	// row or item, on the terms of the first ones: added last, it crowds nothing out (the
	// security page's "a rendered body ... is at most 256 KiB: values are cut to fit" for
	// "what happens when a webhook payload is too big").
	total := 0
	for _, c := range chosen {
		total += len(c.u.text)
	}
	for _, c := range cands[1:] {
		if c.score < 0.75*best.score {
			break
		}
		if c.u.kind == kindSentence || c.own < 0.8*best.own || c.own < minOwn || in(c.u) || total+len(c.u.text) > fillLen ||
			slices.ContainsFunc(chosen, func(o scored) bool { return similar(o.u, c.u) }) || otherAmount(c) ||
			c.u.sec != best.u.sec && c.own < best.own && !addsTerm(q, chosen, c.u) {
			continue
		}
		chosen = append(chosen, c)
		total += len(c.u.text)
		break
	}
	// Last, the best unit of another section of the best unit's page that matches too joins
	// when it fits within pageFillLen: the fact is often one section over on the same page
	// (tuning +3, held out dev9 +1).
	for _, c := range cands[1:] {
		if c.score < pageShare*best.score {
			break
		}
		if pageOf(c.u) != pageOf(best.u) || slices.ContainsFunc(chosen, func(o scored) bool { return o.u.sec == c.u.sec }) ||
			c.own < minOwn || total+len(c.u.text) > pageFillLen || otherAmount(c) || slices.ContainsFunc(chosen, func(o scored) bool { return similar(o.u, c.u) }) {
			continue
		}
		chosen = append(chosen, c)
		break
	}
	// Answer order: sections in the order they were chosen (the best first), units in page
	// order within a section.
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
	out := make([]*unit, len(chosen))
	for i, c := range chosen {
		out[i] = c.u
	}
	return out, true
}

// byScore orders scored units best first.
func byScore(a, b scored) int { return cmp.Compare(b.score, a.score) }

// pageOf is the path of the page a unit is on.
func pageOf(u *unit) string {
	path, _, _ := strings.Cut(u.sec.passage.URL, "#")
	return path
}

// namesPathOf reports whether a unit or its heading holds a path or flag the question writes.
func (q question) namesPathOf(u *unit) bool {
	return slices.ContainsFunc(q.paths, func(p *regexp.Regexp) bool {
		return p.MatchString(u.text) || p.MatchString(u.sec.passage.Heading)
	})
}

// declines reports whether the docs do not cover the question, its best unit being best.
func (q question) declines(best scored) bool {
	// A best unit that ranks below minWeakScore answers only through its section or the
	// question's concepts (bySection, byConcepts below; byHeading and byRank need more than
	// minWeakScore), however much of the question it holds: off-topic questions that share
	// a common pair of words with a sentence ("port my phone number") reach a fair share of
	// it, seldom that score, and a unit holding more that ranks below it is about something
	// else ("which countries can I buy a local phone number in" reaches 0.61 of its weight
	// in the rules of a To Do's contact number, scoring 0.69; no tuning question answered
	// right ranks under 0.83).
	weak := best.score < minWeakScore
	if !q.holdsTopic(best.u) {
		return true
	}
	// A question with one word of the docs ("Who founded answerdesk?", "What is the meaning
	// of life?") is about the docs when that word heads the answering section ("What is
	// pagination?"); a sentence merely using it is a coincidence. No question of the tuning
	// sets answered right has fewer than two, but for a status supposed ("Should that be
	// 403?"): the docs say what each status means.
	if q.known <= 1 && !q.status && q.headingCoverage(best.u.sec) == 0 {
		return true
	}
	if q.fullTotal > 0 && q.unknownFull/q.fullTotal >= maxUnknownShare && (best.score < minScoreMostlyUnknown || q.known <= 1) {
		// One word of the docs among words they never use ("file" in "how do I file my
		// taxes") is a coincidence however well it matches: no question of the tuning
		// sets answered right has fewer than two.
		// Mostly in words the docs never use ("reset my iPhone"): about something else,
		// unless its few known words match very well.
		return true
	} else if best.coverage < minCoverage || best.own < minOwn || weak {
		// No one unit holds enough of the question, but the section may: its heading and
		// units together hold nearly all of the question's words ("Which statuses does a
		// message go through?" under "Message statuses", the statuses in a list). Then the
		// section's best unit answers.
		// Or the section's heading is about the question ("How tokens are stored" for "Is
		// my token stored in plain text?"): off-topic questions share a word or two with a
		// sentence, seldom a good share of a heading.
		bySection := best.own >= minOwnInSection && q.sectionCoverage(best.u.sec) >= minSectionCoverage
		byHeading := best.coverage >= minCoverageUnderHeading && q.headingCoverage(best.u.sec) >= minHeadingCoverage &&
			best.score >= minHeadingScore
		// Or it ranks well above what off-topic questions reach (at most 0.811 on the four
		// tuning sets) while holding a fair share of the question by its own words.
		byRank := best.coverage >= minCoverageUnderHeading && best.own >= minOwn && best.score >= minStrongScore
		// Or the question names several things the docs have headings for ("Is my API token
		// stored in plain text on the server?": api, token, store, server) and the best unit
		// holds some of it: a question in the docs' own concepts is about the docs, however
		// its other words are phrased; the off-topic questions of the four tuning sets that
		// get this far name at most two.
		// Two of those terms must be the best unit's own or its heading's: an off-topic
		// question in the product's words ("can the same receptionist always answer our
		// line?": request, answer, line) names three, and the unit it reaches holds one.
		byConcepts := len(q.isConcept) >= minConcepts && best.own >= minOwnInSection && best.score >= minConceptsScore &&
			q.conceptsHeld(best.u) >= minConceptsHeld
		// Or the best unit names the very path or flag the question writes ("--base-url",
		// "/api/v2/me"): the question is about that thing, whatever else it says.
		byName := best.own >= minOwnInSection && q.namesPathOf(best.u)
		if !bySection && !byHeading && !byRank && !byConcepts && !byName {
			return true
		}
	}
	return false
}

// priorsOf returns what a passage of passages gets from retrieval: its BM25 score relative
// to the best passage's, and its page's share of the retrieved score relative to the best
// page's. A page whose several sections match is about the question; one matching section
// of another page is more often a cross-reference (the rate-limits page mentioning
// dispatching). The sums are made once per passage list, not once per passage.
func priorsOf(passages []Passage) func(Passage) (retrieval, page float64) {
	top := 0.0
	sums := map[string]float64{}
	maxSum := 0.0
	for _, o := range passages {
		top = max(top, o.bm25)
		path, _, _ := strings.Cut(o.URL, "#")
		sums[path] += o.bm25
		maxSum = max(maxSum, sums[path])
	}
	return func(p Passage) (retrieval, page float64) {
		if top > 0 {
			retrieval = p.bm25 / top
		}
		if maxSum > 0 {
			path, _, _ := strings.Cut(p.URL, "#")
			page = sums[path] / maxSum
		}
		return retrieval, page
	}
}

// rerank orders retrieved passages by their best unit's score for the question (which
// holds the retrieval score), best first, and sets Score to it: the passage that answers
// the question first, not only the one with the most matching words.
func (ix *Index) rerank(q question, ps []Passage) {
	priors := priorsOf(ps) // from bm25 alone, which the loop leaves as it is
	for i := range ps {
		r, prior := priors(ps[i])
		best := retrievalWeight * r
		if sec := ix.ans.sections[ps[i].URL]; sec != nil {
			for _, u := range sec.units {
				best = max(best, q.score(u, r).score)
			}
		}
		ps[i].Score = best + pageWeight*prior
	}
	slices.SortStableFunc(ps, func(a, b Passage) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.URL, b.URL)
	})
}

// selectionBonus is what a unit gets, once a question is found answerable, for holding
// the kind of fact asked.
func selectionBonus(q question, u *unit) float64 {
	if q.status && u.status || q.format && u.format {
		return kindBonus
	}
	return 0
}

// debugBest, when set (by a test), sees every question's best unit.
var debugBest func(scored)

// debugDecide, when set (by a test), sees every question with its scored units, best first.
var debugDecide func(question, []scored)

// debugNoDecline, when set (by a test), answers every question: to measure the threshold.
var debugNoDecline bool

// sectionLen is the length of a section's units together.
func sectionLen(sec *docSection) int {
	n := 0
	for _, u := range sec.units {
		n += len(u.text) + 1
	}
	return n
}

// introduced are the units a lead-in introduces: the list items or table rows after it
// (the one next unit when a sentence follows).
func introduced(u *unit) []*unit {
	var out []*unit
	for _, v := range u.sec.units[u.idx+1:] {
		if v.kind == kindSentence {
			if len(out) == 0 {
				out = append(out, v)
			}
			break
		}
		out = append(out, v)
	}
	return out
}

func nextUnit(u *unit) *unit {
	if u.idx+1 < len(u.sec.units) {
		return u.sec.units[u.idx+1]
	}
	return nil
}

// imperatives are the verbs that open an instruction in the docs ("Run `make run`").
var imperatives = func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(`add avoid back call check copy create delete fetch follow give increase keep list pass poll
		put quote read remove replace restrict run send set spread start stop turn use verify wait watch`) {
		set[w] = true
	}
	return set
}()

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

var continuation = regexp.MustCompile(`^(It|Its|This|That|These|Those|They|Both|Each|Either|Neither|Then|Otherwise|Without|Such|From then on|After that)\b`)

func continues(s string) bool { return continuation.MatchString(s) }

// similar reports whether two units say much the same (most of their terms shared).
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
		if t.match(u.terms) == 0 && t.match(u.prev) == 0 {
			continue
		}
		if !slices.ContainsFunc(chosen, func(c scored) bool { return t.match(c.u.terms) > 0 }) {
			return true
		}
	}
	return false
}

// snippet is the part of a section that best matches a query: its best unit and the ones
// after it, up to about maxLen characters; the section's start when nothing matches.
func (ix *Index) snippet(url string, q question, maxLen int) string {
	sec := ix.ans.sections[url]
	if sec == nil || len(sec.units) == 0 {
		return ""
	}
	best, bestScore := 0, -1.0
	for i, u := range sec.units {
		if s := q.score(u, 0); s.score > bestScore {
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

// pairsIn counts the pairs of neighbouring words that stand side by side in seq; in is the
// set of seq's words, to pass over a pair that cannot be there.
func pairsIn(pairs [][2]string, seq []string, in termSet) int {
	n := 0
	for _, p := range pairs {
		if !in[p[0]] || !in[p[1]] {
			continue // a pair whose words are not both there is not there in order
		}
		for i := 0; i+1 < len(seq); i++ {
			if seq[i] == p[0] && seq[i+1] == p[1] {
				n++
				break
			}
		}
	}
	return n
}

// holdsTopic reports whether a unit, with its heading path, holds a word of the question
// other than a unit of measure.
func (q question) holdsTopic(u *unit) bool {
	for _, t := range q.terms {
		if !q.measure[t.term] && (t.match(u.terms) > 0 || t.match(u.ctx) > 0) {
			return true
		}
	}
	return false
}

// sentenceEnd ends a sentence of a question.
var sentenceEnd = regexp.MustCompile(`[.?!]+\s+`)

// askedTerms returns the terms of a question's asking sentences, those with a question
// mark, and those sentences, when it also has sentences of context ("Our chatbot calls the
// pricing endpoint a lot. How many requests per minute are we allowed?"); nil and the
// whole text when every sentence asks or none does.
func (ix *Index) askedTerms(text string) (map[string]bool, string) {
	asks, ok := asking(text)
	if !ok {
		return nil, text
	}
	set := map[string]bool{}
	for _, t := range ix.questionTerms(asks) {
		set[t] = true
	}
	return set, asks
}

// asking returns a question's asking sentences, those with a question mark, and whether it
// also has sentences of context; false when every sentence asks or none does.
func asking(text string) (string, bool) {
	var asks, contexts []string
	for rest := strings.TrimSpace(text); rest != ""; {
		s := rest
		if loc := sentenceEnd.FindStringIndex(rest); loc != nil {
			s = rest[:loc[1]]
		}
		rest = rest[len(s):]
		if strings.Contains(s, "?") {
			asks = append(asks, s)
		} else {
			contexts = append(contexts, s)
		}
	}
	if len(asks) == 0 || len(contexts) == 0 {
		return "", false
	}
	return strings.Join(asks, " "), true
}

// questionTerms are the terms of a question's words, in order, as the docs would write
// them. The words that leave something out ("without giving", "leave it out") ask for a
// default, which the docs name; what is left out, written between them, stays. Then the
// phrases: "how far back" is "how long kept" before "how far" is taken for an asking
// phrase (which left "back", and retrieval and answering disagreeing on it).
func (ix *Index) questionTerms(text string) []string {
	text = omittedQuestion.ReplaceAllString(text, " default ${left} ")
	return ix.terms(joinToDoQuestion(askingPhrases.ReplaceAllStringFunc(phrases.Replace(withPrivateAddress(text)), askedFor)))
}

// ipv4 is an IPv4 address written in a question.
var ipv4 = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)

// withPrivateAddress adds "private address" to a question that writes one ("my callback
// URL is on 10.0.0.5"): the docs speak of private addresses, not of their numbers.
func withPrivateAddress(text string) string {
	for _, m := range ipv4.FindAllString(text, 4) {
		if a, err := netip.ParseAddr(m); err == nil && (a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast()) {
			return text + " (private address)"
		}
	}
	return text
}

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

// productName is a name after a possessive or a preposition that does not
// say where answerdesk runs ("my Twilio messaging service", "the limit for the OpenAI API")
// or one that does (environmentWords).
var productName = regexp.MustCompile(`\b(\w+)\s+(?:(?:a|an|the)\s+)?([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b`)

// environmentWords put a product beside answerdesk ("behind nginx", "on a Postgres
// database", "between the service and Postgres"): the question is about answerdesk there,
// so the answer need not name the product. Not "in": "in Python" is the language of a
// task ("reverse a linked list in Python"), and the pages answering "in Docker" name Docker.
var environmentWords = map[string]bool{"on": true, "behind": true, "during": true, "with": true,
	"from": true, "through": true, "via": true, "into": true, "to": true, "under": true, "and": true, "or": true, "between": true}

// namesOtherProduct reports whether the question asks about another product's own
// settings, such as "the messages-per-second limit on my Twilio messaging service" or "the
// rate limit for the OpenAI API": it names a product the docs name only in passing, not
// where answerdesk runs, and the page that would answer does not name it.
func (ix *Index) namesOtherProduct(text string, sec *docSection) bool {
	page, _, _ := strings.Cut(sec.passage.URL, "#")
	held := func(t string) bool {
		return slices.ContainsFunc(ix.ans.secsByTerm[t], func(s *docSection) bool {
			p, _, _ := strings.Cut(s.passage.URL, "#")
			return p == page
		})
	}
	for _, m := range productName.FindAllStringSubmatch(text, -1) {
		if environmentWords[strings.ToLower(m[1])] || calendarWords[strings.ToLower(m[2])] {
			continue
		}
		for _, t := range ix.terms(m[2]) {
			if ix.ans.proper[t] && !held(t) {
				return true
			}
		}
	}
	return false
}
