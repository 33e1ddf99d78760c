package search

import (
	"cmp"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
)

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
			return synonymShare * t.weight
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

// prepare parses a question for retrieval and scoring: its terms weighted by rarity, the
// stop words that mean something in it, its pairs of neighbouring words, the paths and
// flags it names, and the kinds of fact it asks for.
func (ix *Index) prepare(text string) question {
	var q question
	text = strings.ToValidUTF8(text, " ")
	text = firstChars(text, maxQueryChars)
	seq := ix.questionTerms(text)
	seen := termSet{}
	// The asking sentences, when there are sentences of context too: they alone name a path
	// or flag to answer about, and the context's words weigh less.
	var named string
	q.asked, named = ix.askedTerms(text)
	ix.addWordTerms(&q, seq, seen)
	ix.addStatusClasses(&q, seq)
	ix.addStopWordTerms(&q, text, seen)
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
	q.paths = namedPaths(named)
	q.raw = ix.rawPairs(text)
	q.setKinds(strings.ToLower(text))
	return q
}

// add adds a term to the question with the terms standing for it and its weight, and marks
// it seen.
func (q *question) add(seen termSet, term string, alts []string, w float64) {
	seen[term] = true
	q.terms = append(q.terms, qterm{term: term, alts: alts, weight: w})
	q.total += w
}

// addWordTerms adds the terms of the question's words (seq) and of the parts of its
// snake_case names, each weighted by its rarity: less in a sentence of context, as much as
// its synonym's for a word the docs never use that has one, less for a part of a name, and
// less again for a word the docs never use. It counts the terms the docs know and notes
// those that are units of measure or the docs' concepts.
func (ix *Index) addWordTerms(q *question, seq []string, seen termSet) {
	a := ix.ans
	for _, t := range seq {
		set := termSet{}
		ix.addTerm(set, t)
		// In order: the terms' order and the sum of their weights must not vary from run
		// to run with the map's.
		for _, p := range slices.Sorted(maps.Keys(set)) {
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
				w *= partWeight // a part of a compound word counts less
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
			q.add(seen, p, a.syn[p], w)
		}
	}
}

// addStatusClasses makes an HTTP status of the question stand for its class too (the docs
// say "5xx answers are retried"); a status the docs never write weighs as its class.
func (ix *Index) addStatusClasses(q *question, seq []string) {
	a := ix.ans
	for _, t := range seq {
		if !httpStatus.MatchString(t) {
			continue
		}
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

// addStopWordTerms adds the stop words that carry meaning in a question about an API ("my
// endpoint is down") as terms "~word", standing for their synonyms and weighing as the
// rarest of them.
func (ix *Index) addStopWordTerms(q *question, text string, seen termSet) {
	for _, t := range ix.words.Analyze([]byte(strings.ToLower(text))) {
		if alts, ok := ix.ans.rawSyn[string(t.Term)]; ok && !seen["~"+string(t.Term)] {
			w := 0.0
			for _, alt := range alts {
				w = max(w, ix.ans.idf(alt))
			}
			q.add(seen, "~"+string(t.Term), alts, w)
			q.synQ = append(q.synQ, alts...)
		}
	}
}

// namedPaths are the API paths and command-line flags written in the asking sentences,
// matched whole: a flag's words are common ("base", "url") and the flag is what the
// question is about. A path or flag of the context ("I'm getting 429s from
// /api/v1/search.") says where, not what is asked, and is not passed here.
func namedPaths(named string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, p := range apiPath.FindAllString(strings.ToLower(named), maxNamedPaths) {
		out = append(out, regexp.MustCompile(regexp.QuoteMeta(p)+`(?:[^a-z0-9_/-]|$)`))
	}
	for _, m := range flagName.FindAllStringSubmatch(strings.ToLower(named), maxNamedPaths) {
		out = append(out, regexp.MustCompile(regexp.QuoteMeta(m[1])+`(?:[^a-z0-9_-]|$)`))
	}
	return out
}

// rawPairs are the pairs of neighbouring words of a text as written, stop words included,
// at least one of them a content word or a stop word that carries meaning.
func (ix *Index) rawPairs(text string) [][2]string {
	var out [][2]string
	content := func(w string) bool { _, syn := ix.ans.rawSyn[w]; return syn || len(ix.terms(w)) > 0 }
	rw := ix.rawWords(text)
	for i := 0; i+1 < len(rw); i++ {
		if content(rw[i]) || content(rw[i+1]) {
			out = append(out, [2]string{rw[i], rw[i+1]})
		}
	}
	return out
}

// setKinds sets the kinds of fact the question (lower-cased) asks for.
func (q *question) setKinds(lower string) {
	q.number = numberQuestion.MatchString(lower)
	q.code = codeQuestion.MatchString(lower)
	q.howTo = howToQuestion.MatchString(lower)
	q.list = listQuestion.MatchString(lower)
	q.returns = returnsQuestion.MatchString(lower)
	q.omitted = omittedQuestion.MatchString(lower)
	q.status = statusQuestion.MatchString(lower)
	q.format = formatQuestion.MatchString(lower)
	q.where = whereQuestion.MatchString(lower)
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

// heaviestFirst returns a copy of terms, the heaviest first (ties in question order).
func heaviestFirst(terms []qterm) []qterm {
	out := slices.Clone(terms)
	slices.SortStableFunc(out, func(a, b qterm) int { return cmp.Compare(b.weight, a.weight) })
	return out
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
// phrase (which would leave "back", on which retrieval and answering would disagree).
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
