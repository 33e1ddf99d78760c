package search

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
)

// scored is a unit with its score for a question.
type scored struct {
	u        *unit
	score    float64
	coverage float64 // share of the question's weight the unit (and, for less, its heading path) holds
	own      float64 // share held by the unit's own words
}

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
	s.score += math.Min(maxPairBonus, pairBonus*float64(pairsIn(q.bigrams, u.seq, u.terms)))
	// The question's words in the same order as written ("endpoint is down").
	s.score += math.Min(maxRawPairBonus, rawPairBonus*float64(pairsIn(q.raw, u.raw, u.rawSet)))
	if q.namesPathOf(u) {
		s.score += pathBonus
	}
	// For an amount, a unit about the very resource the question names ("the default
	// page size of the To Do list": `GET /api/v2/to-dos`) beats one about another list
	// that merely mentions it: each list has its own defaults and limits.
	if q.number && u.quantity && q.asks(u.leaves) {
		s.score += resourceBonus
	}
	if q.list && u.codes >= minListCodes {
		s.score += listBonus // "which values ...": a unit that lists names
	}
	if q.omitted && defaults.MatchString(u.text) {
		s.score += defaultBonus // "when I leave it out": what it defaults to
	}
	if q.returns && u.body {
		s.score += bodyBonus // the body it returns, as written, beats a sentence that it answers
	}
	if q.list && u.choices {
		s.score += choicesBonus // ... and better, names them as the alternatives they are
	}
	if q.number {
		switch {
		case u.quantity:
			s.score += quantityBonus
		case u.digit:
			s.score += digitBonus
		default:
			// "The page size used (your page_size, or the list's default)" names the
			// thing asked about but not its amount: a confident answer without the fact.
			s.score -= noAmountPenalty
		}
	}
	if q.code && strings.Contains(u.text, "`") {
		s.score += codeBonus
	}
	if q.howTo && u.imperative {
		s.score += imperativeBonus
	}
	// "How do I ..." asks for an operation; a section describing an object's fields or
	// showing an example names the words of an operation without saying how.
	if q.howTo && u.sec.reference {
		s.score -= referencePenalty
	}
	// Long sentences match many words by their length alone.
	switch {
	case u.words < shortSentenceWords && u.kind == kindSentence:
		s.score -= shortSentencePenalty
	case u.words > longUnitWords:
		s.score -= math.Min(maxLongUnitPenalty, longUnitPenaltyPerWord*float64(u.words-longUnitWords))
	}
	if strings.HasSuffix(u.text, ":") {
		s.score -= leadInPenalty // a lead-in to a list says little alone
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

// namesPathOf reports whether a unit or its heading holds a path or flag the question writes.
func (q question) namesPathOf(u *unit) bool {
	return slices.ContainsFunc(q.paths, func(p *regexp.Regexp) bool {
		return p.MatchString(u.text) || p.MatchString(u.sec.passage.Heading)
	})
}

// scoreUnits scores every unit of the passages' sections for the question, with each
// passage's retrieval score and its page's share (priorsOf), best first.
func (ix *Index) scoreUnits(q question, passages []Passage) []scored {
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
	slices.SortStableFunc(cands, byScore)
	return cands
}

// rerankForKind adds to the scored units, sorted best first, what they get for holding the
// kind of fact asked (selectionBonus), and sorts them again. This is for a question found
// answerable: that a unit holds the kind of fact asked (a status for "which error", a
// format for "what format") says nothing of whether the docs cover the question, and would
// lift an off-topic question's best unit with the rest.
func rerankForKind(q question, cands []scored) []scored {
	reranked := false
	for i := range cands {
		if b := selectionBonus(q, cands[i].u); b != 0 {
			cands[i].score += b
			reranked = true
		}
	}
	if reranked {
		slices.SortStableFunc(cands, byScore)
	}
	return cands
}

// asksKind reports whether the question asks for a kind of fact a unit may hold: an amount,
// a name, a body, the values, a status, a format or a place.
func (q question) asksKind() bool {
	return q.number || q.code || q.howTo || q.returns || q.list || q.status || q.format || q.where
}

// holdsKind reports whether a unit holds the kind of fact the question asks for: an amount
// for "how long", code for "which header" or "how do I", a body for "what does X return",
// alternatives for "which values", a status for "which error", a format for "what format",
// a path or URL for "where".
func (q question) holdsKind(u *unit) bool {
	return q.number && u.quantity || (q.code || q.howTo) && u.codes > 0 || q.returns && u.body ||
		q.list && u.choices || q.status && u.status || q.format && u.format || q.where && u.location
}

// selectionBonus is what a unit gets, once a question is found answerable, for holding
// the kind of fact asked.
func selectionBonus(q question, u *unit) float64 {
	if q.status && u.status || q.format && u.format {
		return kindBonus
	}
	return 0
}

// byScore orders scored units best first.
func byScore(a, b scored) int { return cmp.Compare(b.score, a.score) }

// similar reports whether two units say much the same (most of their terms shared).
func similar(a, b *unit) bool {
	inter := 0
	for t := range a.terms {
		if b.terms[t] {
			inter++
		}
	}
	union := len(a.terms) + len(b.terms) - inter
	return union > 0 && float64(inter)/float64(union) > similarShare
}
