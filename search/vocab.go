package search

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
)

// vocab is the words of the raw (unstemmed) fields of an index, read back from the index
// once it is built, to expand a query word into the indexed words it may mean: those one
// typo away, and those it begins. Bleve's fuzzy and prefix queries do this per query and
// field (a Levenshtein automaton built for each word and field, then every word a prefix
// begins); with the index immutable, doing it here once per word is cheaper, bounded, and
// lets a typo be a transposition too.
type vocab struct {
	fields map[string]*fieldVocab // by raw field name
	// near maps each word, and each word with one character deleted, to the words: two
	// words one edit apart share an entry (symmetric deletion).
	near map[string][]string
}

type fieldVocab struct {
	docs  map[string]uint64 // word → documents with it
	words []string          // sorted
}

// maxNearRunes bounds the words given deletion entries; longer words (URLs, code) match
// only exactly or as a prefix.
const maxNearRunes = 32

func buildVocab(idx bleve.Index, fields []field) (*vocab, error) {
	v := &vocab{fields: map[string]*fieldVocab{}, near: map[string][]string{}}
	seen := map[string]bool{}
	for _, f := range fields {
		fv := &fieldVocab{docs: map[string]uint64{}}
		d, err := idx.FieldDict(f.raw())
		if err != nil {
			return nil, fmt.Errorf("search: read %s terms: %w", f.raw(), err)
		}
		for {
			e, err := d.Next()
			if err != nil {
				_ = d.Close()
				return nil, fmt.Errorf("search: read %s terms: %w", f.raw(), err)
			}
			if e == nil {
				break
			}
			fv.docs[e.Term] = e.Count
			fv.words = append(fv.words, e.Term)
		}
		if err := d.Close(); err != nil {
			return nil, err
		}
		slices.Sort(fv.words) // the dictionary is sorted already; cheap to be sure
		v.fields[f.raw()] = fv
		for _, w := range fv.words {
			if seen[w] {
				continue
			}
			seen[w] = true
			rs := []rune(w)
			if len(rs) > maxNearRunes {
				continue
			}
			v.near[w] = append(v.near[w], w)
			for _, del := range deletions(rs) {
				v.near[del] = append(v.near[del], w)
			}
		}
	}
	return v, nil
}

// deletions is a word with each of its characters deleted in turn (distinct results).
func deletions(rs []rune) []string {
	out := make([]string, 0, len(rs))
	for i := range rs {
		if i > 0 && rs[i] == rs[i-1] {
			continue // deleting either of two equal neighbours gives the same word
		}
		out = append(out, string(rs[:i])+string(rs[i+1:]))
	}
	return out
}

// typo is an indexed word a query word may mean, and the edits between them (0 or 1).
type typo struct {
	word string
	dist int
}

// typos is the indexed words at most one edit (insertion, deletion, substitution, or
// transposition of neighbours) from w, w itself first if indexed, then by word.
func (v *vocab) typos(w string) []typo {
	rs := []rune(w)
	if len(rs) > maxNearRunes {
		return nil
	}
	cand := map[string]bool{}
	for _, k := range append(deletions(rs), w) {
		for _, c := range v.near[k] {
			cand[c] = true
		}
	}
	var out []typo
	for c := range cand {
		if d := editDistance1(rs, []rune(c)); d <= 1 {
			out = append(out, typo{c, d})
		}
	}
	slices.SortFunc(out, func(a, b typo) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.word, b.word)
	})
	return out
}

// editDistance1 is 0 for equal words, 1 for words one edit apart (counting a transposition
// of neighbours as one), and 2 otherwise.
func editDistance1(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	switch len(a) - len(b) {
	case 0:
		var diff []int
		for i := range a {
			if a[i] != b[i] {
				if diff = append(diff, i); len(diff) > 2 {
					return 2
				}
			}
		}
		switch {
		case len(diff) == 0:
			return 0
		case len(diff) == 1:
			return 1
		case diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]:
			return 1
		}
		return 2
	case 1:
		// b is a with one character deleted?
		i := 0
		for i < len(b) && a[i] == b[i] {
			i++
		}
		if slices.Equal(a[i+1:], b[i:]) {
			return 1
		}
		return 2
	}
	return 2
}

// present is the words among ws indexed in the field.
func (v *vocab) present(field string, ts []typo) []typo {
	fv := v.fields[field]
	if fv == nil {
		return nil
	}
	var out []typo
	for _, t := range ts {
		if fv.docs[t.word] > 0 {
			out = append(out, t)
		}
	}
	return out
}

// prefixed is the (at most) max most frequent words of the field that begin with p, ties by
// word; a short prefix can begin thousands of words, and a query over all of them is slow
// and no better (search engines bound prefix expansion the same way).
func (v *vocab) prefixed(field, p string, max int) []string {
	fv := v.fields[field]
	if fv == nil {
		return nil
	}
	i, _ := slices.BinarySearch(fv.words, p)
	j := i
	for j < len(fv.words) && strings.HasPrefix(fv.words[j], p) {
		j++
	}
	ws := slices.Clone(fv.words[i:j])
	if len(ws) > max {
		slices.SortStableFunc(ws, func(a, b string) int { // stable: ties stay by word
			ca, cb := fv.docs[a], fv.docs[b]
			switch {
			case ca > cb:
				return -1
			case ca < cb:
				return 1
			}
			return 0
		})
		ws = ws[:max]
		slices.Sort(ws)
	}
	return ws
}

// Integrator vocabulary. The questions come from people who read the service description
// (SERVICE.md) and its contract (CONTRACT.md), not the docs: where those name a concept by
// words the docs do not use for it, the question is rewritten into the docs' words before it
// is analysed, for retrieval and answering alike. Each rule says where its phrasing comes
// from; they are about concepts (filters, limits, retention, fields), not about questions.
type questionPhrase struct {
	re   *regexp.Regexp
	docs string // what the phrase is, in the docs' words
}

var questionPhrases = []questionPhrase{
	// Phrasings the answerer had before (they were case-sensitive: "How far back" at the
	// start of a question was left alone).
	{regexp.MustCompile(`(?i)\bhow far back\b`), "how long kept"},
	{regexp.MustCompile(`(?i)\btext messages?\b`), "SMS"},
	{regexp.MustCompile(`(?i)\bapi keys\b`), "API tokens"},
	{regexp.MustCompile(`(?i)\bapi key\b`), "API token"},
	// SERVICE.md §4.1 filters messages "by date range" ("start of date range", "end of date
	// range"); the docs call them the date filters (`start_date`, `end_date`, and
	// `from_date`, `to_date` on recordings). Everyday words for a span of days ask for them.
	{regexp.MustCompile(`(?i)\bdate ranges?\b`), "date filter range"},
	{regexp.MustCompile(`(?i)\b(?:from |in |during |over )?(?:the )?(?:last|past|previous) (?:week|month|year|few days|\d+ days|\w+ days)(?:'s)?\b|\byesterday(?:'s)?\b`), " date filter "},
	{regexp.MustCompile(`(?i)\bbetween two dates\b|\bfor a (?:given |certain )?(?:period|span of days)\b`), " date filter "},
	// A message's `content` is "the full message body" (SERVICE.md §6); an integrator asks
	// for the text of a message. Only so: "text" alone is an SMS, a To Do's `message_text`
	// or plain text.
	{regexp.MustCompile(`(?i)\btext of (?:a|the|my|each|this|that|one) message\b|\bmessage's text\b`), "content of a message"},
	// CONTRACT.md §2 refuses destinations "on loopback, private, link-local or metadata
	// addresses"; an integrator names the address itself. Loopback is an OAuth redirect's
	// word too (CONTRACT.md §4), so 127.0.0.1 and localhost add only that.
	{regexp.MustCompile(`\b(?:10\.\d{1,3}|192\.168|172\.(?:1[6-9]|2\d|3[01])|169\.254)\.\d{1,3}(?:\.\d{1,3})?\b`), "$0 private address"},
	{regexp.MustCompile(`(?i)\b127\.\d{1,3}\.\d{1,3}\.\d{1,3}\b|\blocalhost\b`), "$0 loopback"},
	// "Call" is a phone call in the docs; calling a path or an endpoint is making a request.
	{regexp.MustCompile(`(?i)\bcall(?:ing|s|ed)? (a|an|the|this|that|my|your|some) (path|endpoint|url|route|api)\b`), "request $1 $2"},
	// CONTRACT.md §1.2: a body that is not JSON is "malformed JSON" (400 processing_error).
	{regexp.MustCompile(`(?i)\b(?:does not|doesn't|did not|didn't|won't|will not|can't|cannot) parse\b|\bunparseable\b|\b(?:invalid|broken|bad|garbled|truncated) json\b`), "malformed JSON"},
	// CONTRACT.md §1.2: "Unknown path: 404 rest_no_route".
	{regexp.MustCompile(`(?i)\b(?:path|route|endpoint|url)s? that (?:does not|doesn't|do not|don't) exist\b|\b(?:nonexistent|non-existent|missing) (?:path|route|endpoint)s?\b`), "unknown path"},
	// SERVICE.md §9: a version that is going away carries "Deprecation and Sunset headers".
	{regexp.MustCompile(`(?i)\b(?:going away|goes away|be (?:removed|retired|discontinued|turned off)|end of life|phased out)\b`), "deprecated sunset"},
	// CONTRACT.md §1.4: known properties are type-checked, "422 on a wrong type"; an
	// integrator sends "a number where a string is expected".
	{regexp.MustCompile(`(?i)\b(?:a|an) (?:number|string|boolean|integer|object|array|list)s? (?:where|instead of|in place of|when) (?:a|an) (?:number|string|boolean|integer|object|array|list)\b(?: is expected| was expected| is wanted)?`), "a value of the wrong type"},
	// CONTRACT.md §0: `/healthz` and `/readyz` are liveness and readiness.
	{regexp.MustCompile(`(?i)\bready\b|\breadiness\b`), "$0 readyz"},
	{regexp.MustCompile(`(?i)\bliveness\b|\bis (?:it |the \w+ )?alive\b`), "$0 healthz"},
	// CONTRACT.md §2: signing lets the receiver check that a request is authentic; an
	// integrator asks whether it "really came from" the service.
	{regexp.MustCompile(`(?i)\breally (?:came|comes|come|is|was) from\b|\b(?:came|comes) from (?:you|answerdesk)\b`), "signature verify from"},
	// A schedule's coming occurrences are its upcoming ones in the docs (`schedule.upcoming`;
	// CONTRACT.md §1.6 `next_occurrence`); an integrator asks for "the next few dates".
	{regexp.MustCompile(`(?i)\bnext (?:few|several|couple of|\d+|ten|five|three) (?:dates|times|occurrences|runs|sends|deliveries)\b`), "upcoming occurrences"},
	// A recurrence that stops after a date ends "until" it (RFC 5545 UNTIL, CONTRACT.md §1.6
	// stores schedules as RRULEs).
	{regexp.MustCompile(`(?i)\bafter a (?:certain|given|specific|set|fixed|particular) date\b`), "until the last date"},
	// "Time-out" is two words to the analyzer ("time" and the stop word "out"): written as
	// the docs' one word, timeout (CONTRACT.md §2 "Time-out 10 s").
	{regexp.MustCompile(`(?i)\btime-outs?\b|\btimes out\b|\btimed out\b`), "timeout"},
	// SERVICE.md §9: within a version changes only add; "a breaking change ships as" a new
	// version. An integrator asks whether the API changes "without warning".
	{regexp.MustCompile(`(?i)\bwithout (?:any )?(?:warning|notice)\b|\bchange (?:under|on) (?:me|us|you)\b`), "breaking change"},
	// Concurrency: the docs state how many things run together as "N at a time" (the
	// dispatcher's "16 at a time"); an integrator asks how many go "in parallel".
	{regexp.MustCompile(`(?i)\b(?:in parallel|concurrently|simultaneously|at the same time)\b`), " at a time "},
}

// rephrase rewrites the integrator phrasings of a question (questionPhrases) into the
// docs' words. A possessive ("last month's invoice") names a thing of that time, not a
// span of days to filter by: it is left as written.
func rephrase(s string) string {
	for _, p := range questionPhrases {
		if p.re.MatchString(s) {
			s = p.re.ReplaceAllStringFunc(s, func(m string) string {
				if strings.HasSuffix(m, "'s") {
					return m
				}
				return p.re.ReplaceAllString(m, p.docs) // expands $0, $1 ...
			})
		}
	}
	return s
}

// specSynonyms are the words SERVICE.md and CONTRACT.md use for a field or concept that the
// docs name otherwise, one way (the docs' word does not stand for the spec's):
//   - a To Do is a "scheduled outbound task" (SERVICE.md §1), to an integrator a reminder;
//   - a To Do's `name` is its "label" and its `contact` the "recipient" (§2.3);
//   - every response is "wrapped" as `{"data": ...}` (§2.1).
var specSynonyms = map[string][]string{
	"label":     {"name"},
	"recipient": {"contact"},
	"reminder":  {"todo"},
	"wrapped":   {"data"},
	"wrapper":   {"data"},
	"envelope":  {"data"},
}
