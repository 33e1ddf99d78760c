package search

import (
	"slices"
	"strings"
)

// answerUnits picks the units that answer a question from the sections of its passages, in
// answer order; false when none is good enough. The units are scored (scoreUnits), the
// question declined when the best one does not answer it (declinesBest), and the answer
// composed around the best unit by the joiners below, in this order.
func (ix *Index) answerUnits(q question, text string, minScore float64, passages []Passage) ([]*unit, bool) {
	cands := ix.scoreUnits(q, passages)
	if len(cands) == 0 || ix.declinesBest(q, text, minScore, cands) {
		return nil, false
	}
	c := newComposer(q, rerankForKind(q, cands))
	c.joinFollowing()
	c.joinRanked()
	c.joinIntroduced()
	c.joinContinued()
	c.joinMissingWords()
	c.joinKindAsked()
	c.joinShortSection()
	c.joinFill()
	c.joinSamePage()
	return c.units(), true
}

// composer builds an answer: the units chosen so far around the best one.
type composer struct {
	q      question
	cands  []scored // every scored unit, best first
	best   scored
	chosen []scored // in the order they joined, the best first
	length int      // characters of the chosen units, as the joiners that bound it count them
}

// newComposer starts an answer with the best of cands, which are sorted best first.
func newComposer(q question, cands []scored) *composer {
	best := cands[0]
	return &composer{q: q, cands: cands, best: best, chosen: []scored{best}, length: len(best.u.text)}
}

// add joins a unit to the answer, counting its length.
func (c *composer) add(s scored) {
	c.chosen = append(c.chosen, s)
	c.length += len(s.u.text)
}

// quotes reports whether the answer quotes u.
func (c *composer) quotes(u *unit) bool {
	return slices.ContainsFunc(c.chosen, func(o scored) bool { return o.u == u })
}

// quotesSimilar reports whether the answer quotes u or a unit saying much the same.
func (c *composer) quotesSimilar(u *unit) bool {
	return slices.ContainsFunc(c.chosen, func(o scored) bool { return o.u == u || similar(o.u, u) })
}

// full reports whether the answer quotes as many units as it may.
func (c *composer) full() bool { return len(c.chosen) >= maxAnswerUnit+maxExtraRows }

// otherAmount reports whether s is a unit of another section stating the amount of another
// resource than the one asked about, for an answer that states one already: the deliveries
// list's "default 20" beside the To Do list's "default 10" makes a right answer wrong.
func (c *composer) otherAmount(s scored) bool {
	q := c.q
	return q.number && s.u.sec != c.best.u.sec && s.u.quantity && len(s.u.leaves) > 0 && !q.names(s.u.leaves) &&
		slices.ContainsFunc(c.chosen, func(o scored) bool { return o.u.quantity })
}

// joinFollowing joins the units after the best one when it introduces them ("...:") or the
// next one continues it ("It", "This", ...). A lead-in ("Its tools are:") is never quoted
// alone: the first thing it introduces comes with it, however long.
func (c *composer) joinFollowing() {
	leadIn := strings.HasSuffix(c.best.u.text, ":")
	for u := c.best.u; ; {
		next := nextUnit(u)
		if next == nil {
			break
		}
		tooLong := c.length+len(next.text) > maxAnswerLen && !strings.HasSuffix(u.text, ":")
		if len(c.chosen) > maxAnswerUnit || tooLong || !leadIn && !continues(next.text) {
			break
		}
		c.add(scored{u: next, score: c.best.score})
		// A continuation that introduces what follows ("Its tools are:") brings it too.
		if strings.HasSuffix(next.text, ":") {
			leadIn = true
		} else if !leadIn {
			break
		}
		u = next
	}
}

// runnerUps are the sections looked at for a runner-up: the best unit of a section
// near-tied with the best one's.
type runnerUps struct {
	others map[*docSection]bool // the best section and those whose best unit was considered
	looked map[*docSection]bool // the sections looked at
	done   bool
}

// runnerUp reports whether s is the best unit of a near-tied section that joins the answer
// as its runner-up. Two sections near-tied for the question are often two views of one
// fact (a field's rule in a table, its behaviour in prose).
func (c *composer) runnerUp(r *runnerUps, s scored) bool {
	if r.done || s.score < runnerUpShare*c.best.score || len(r.others) > maxRunnerUps {
		r.done = true
		return false
	}
	if r.others[s.u.sec] {
		return false
	}
	r.looked[s.u.sec] = true
	if len(r.looked) > maxRunnerUpLooks {
		r.done = true
		return false
	}
	// When the best unit holds the kind of fact asked (the values, the amount), a unit
	// that does not is beside the point; the next one that does may join.
	if c.q.holdsKind(c.best.u) && !c.q.holdsKind(s.u) {
		return false
	}
	r.others[s.u.sec] = true
	return s.own >= minOwn && c.length+len(s.u.text) <= maxAnswerLen && !c.otherAmount(s) && !c.quotesSimilar(s.u)
}

// joinRanked goes down the ranked units and joins the runner-up sections' best units
// (before the best section's further units use up the answer's length), the table rows
// and list items matching as well as the best unit, the best section's units near it, and
// the units of other sections near it that add a question word the answer lacks.
func (c *composer) joinRanked() {
	q, best := c.q, c.best
	r := &runnerUps{others: map[*docSection]bool{best.u.sec: true}, looked: map[*docSection]bool{}}
	rows := 0
	for _, s := range c.cands[1:] {
		if c.full() {
			break
		}
		if s.u.sec != best.u.sec && c.runnerUp(r, s) {
			c.add(s)
			continue
		}
		if s.own < minOwn && (s.u.sec != best.u.sec || s.own < siblingOwnShare*best.own) || c.length+len(s.u.text) > maxAnswerLen {
			continue
		}
		// A table row or list item that matches as well as the best sentence (a limits or
		// required-fields table) joins the answer; other sentences must score near the best.
		row := s.u.kind != kindSentence && s.own >= rowOwnShare*best.own && s.score >= rowShare*best.score
		// The best section's next most relevant sentence often holds the fact the best
		// one introduces ("... signed link ..." then "... valid for 15 minutes ...").
		sibling := s.u.sec == best.u.sec && s.score >= siblingShare*best.score
		if !row && !sibling && (s.score < sentenceShare*best.score || len(c.chosen) >= maxAnswerUnit) {
			continue
		}
		if row && rows >= maxExtraRows {
			continue
		}
		if c.quotesSimilar(s.u) {
			continue
		}
		// A unit from another section must add a question word the answer lacks, unless it
		// scores within nearTie of the best and is the first to join: either may hold the
		// fact, and the reader gets both. A row or item that holds at least as much of the
		// question by its own words as the best unit is the table's or list's own statement
		// of it (the required fields of one kind of To Do): it joins without adding a word.
		strongRow := row && s.own >= best.own
		if s.u.sec != best.u.sec && !strongRow && !addsTerm(q, c.chosen, s.u) && (s.score < nearTie*best.score || len(c.chosen) > 1) {
			continue
		}
		// Nor may it bring another resource's amount to an answer that states one.
		if c.otherAmount(s) {
			continue
		}
		if row {
			rows++
		}
		c.add(s)
	}
}

// joinIntroduced joins, for each chosen lead-in ("... with this retry policy:") but the
// best unit, the item it introduces that matches the question best: a lead-in is never
// quoted alone. A lead-in one of whose items is quoted already brings none.
func (c *composer) joinIntroduced() {
	for i := 1; i < len(c.chosen) && !c.full(); i++ {
		u := c.chosen[i].u
		if !strings.HasSuffix(u.text, ":") {
			continue
		}
		var pick *scored
		for _, v := range introduced(u) {
			if c.quotes(v) {
				pick = nil
				break
			}
			if s := c.q.score(v, 0); pick == nil || s.score > pick.score {
				pick = &s
			}
		}
		if pick != nil {
			c.add(*pick)
		}
	}
}

// joinContinued joins, for each chosen unit that continues another ("It means ..."), the
// one it continues, and the unit that continues a chosen one ("It is one of ..."). Their
// length is not counted: a continuation is part of its sentence.
func (c *composer) joinContinued() {
	for i := 0; i < len(c.chosen) && !c.full(); i++ {
		u := c.chosen[i].u
		if continues(u.text) && u.idx > 0 && u.kind == kindSentence {
			if prev := u.sec.units[u.idx-1]; !c.quotes(prev) {
				c.chosen = append(c.chosen, scored{u: prev, score: c.chosen[i].score})
			}
		}
		if next := nextUnit(u); next != nil && continues(next.text) && !c.quotes(next) {
			c.chosen = append(c.chosen, scored{u: next, score: c.chosen[i].score})
		}
	}
}

// joinMissingWords joins the unit holding a heavy question word no chosen unit has
// ("mandatory" in "which property is mandatory when I post a message": the row that says
// "Required"), at most maxCoverUnits of them. In a section the answer quotes, the word is
// used in the answer's sense whatever the unit's rank ("To Dos and the other lists do not
// carry tags yet." at the end of the ETag section); elsewhere the unit must rank near the
// best, nearer off the pages the answer quotes, where the word is often used in another
// sense ("can the server write" and "write-only secrets").
func (c *composer) joinMissingWords() {
	onChosenPage := func(x *unit) bool {
		return slices.ContainsFunc(c.chosen, func(o scored) bool { return pageOf(o.u) == pageOf(x) })
	}
	onChosenSection := func(x *unit) bool {
		return slices.ContainsFunc(c.chosen, func(o scored) bool { return o.u.sec == x.sec })
	}
	added := 0
	for _, t := range heaviestFirst(c.q.terms) {
		if added >= maxCoverUnits || t.weight < minCoverWeight*c.q.total {
			break
		}
		if slices.ContainsFunc(c.chosen, func(s scored) bool { return t.match(s.u.terms) > 0 || t.match(s.u.prev) > 0 }) {
			continue
		}
		for _, s := range c.cands[1:] {
			if t.match(s.u.terms) == 0 || c.quotes(s.u) || c.length+len(s.u.text) > maxAnswerLen ||
				!onChosenSection(s.u) && (s.score < coverPageShare*c.best.score ||
					!onChosenPage(s.u) && s.score < coverOtherPageShare*c.best.score) {
				continue
			}
			c.add(s)
			added++
			break
		}
	}
}

// joinKindAsked makes the answer hold the kind of thing asked (an amount for "how long", a
// name for "which header" or "how do I", a body for "what does X return", the alternatives
// for "which values") when the best unit lacks it: the nearest unit of the best section
// that has it, after the best one (it usually goes on with the same thought) or failing
// that before it; failing that, when no chosen unit has it, the best unit of another
// section that has it, scoring completionShare of the best.
func (c *composer) joinKindAsked() {
	q, best := c.q, c.best
	if !q.asksKind() || q.holdsKind(best.u) {
		return
	}
	after := best.u.sec.units[best.u.idx+1:]
	before := slices.Clone(best.u.sec.units[:best.u.idx])
	slices.Reverse(before)
	for _, u := range append(slices.Clone(after), before...) {
		if s := q.score(u, 0); q.holdsKind(u) && s.own > 0 && !c.quotes(u) {
			c.chosen = append(c.chosen, s)
			return
		}
	}
	if slices.ContainsFunc(c.chosen, func(s scored) bool { return q.holdsKind(s.u) }) {
		return
	}
	for _, s := range c.cands[1:] {
		if q.holdsKind(s.u) && s.own > 0 && s.score >= completionShare*best.score && !c.quotes(s.u) {
			c.chosen = append(c.chosen, s)
			return
		}
	}
}

// joinShortSection quotes a short section whole: its few sentences are one thought, and the
// one the question's words miss often holds the fact ("... and are not listed." after
// "Occurrences that came due ...").
func (c *composer) joinShortSection() {
	if sectionLen(c.best.u.sec) > shortSection {
		return
	}
	for _, u := range c.best.u.sec.units {
		if !c.quotes(u) {
			c.chosen = append(c.chosen, scored{u: u, score: c.best.score})
		}
	}
}

// joinFill fills the room left once everything above has joined (up to fillLen) with one
// more matching row or item, on the terms of the first ones: added last, it crowds nothing
// out (the security page's "a rendered body ... is at most 256 KiB: values are cut to fit"
// for "what happens when a webhook payload is too big"). From here on length counts every
// chosen unit.
func (c *composer) joinFill() {
	q, best := c.q, c.best
	c.length = 0
	for _, s := range c.chosen {
		c.length += len(s.u.text)
	}
	for _, s := range c.cands[1:] {
		if s.score < rowShare*best.score {
			break
		}
		if s.u.kind == kindSentence || s.own < rowOwnShare*best.own || s.own < minOwn || c.quotes(s.u) || c.length+len(s.u.text) > fillLen ||
			slices.ContainsFunc(c.chosen, func(o scored) bool { return similar(o.u, s.u) }) || c.otherAmount(s) ||
			s.u.sec != best.u.sec && s.own < best.own && !addsTerm(q, c.chosen, s.u) {
			continue
		}
		c.add(s)
		return
	}
}

// joinSamePage joins, last, the best unit of another section of the best unit's page that
// matches too, when it fits within pageFillLen: the fact is often one section over on the
// same page.
func (c *composer) joinSamePage() {
	best := c.best
	for _, s := range c.cands[1:] {
		if s.score < pageShare*best.score {
			break
		}
		if pageOf(s.u) != pageOf(best.u) || slices.ContainsFunc(c.chosen, func(o scored) bool { return o.u.sec == s.u.sec }) ||
			s.own < minOwn || c.length+len(s.u.text) > pageFillLen || c.otherAmount(s) ||
			slices.ContainsFunc(c.chosen, func(o scored) bool { return similar(o.u, s.u) }) {
			continue
		}
		c.add(s)
		return
	}
}

// units are the chosen units in answer order: sections in the order they were chosen (the
// best first), units in page order within a section.
func (c *composer) units() []*unit {
	order := map[*docSection]int{}
	for _, s := range c.chosen {
		if _, ok := order[s.u.sec]; !ok {
			order[s.u.sec] = len(order)
		}
	}
	slices.SortStableFunc(c.chosen, func(a, b scored) int {
		if oa, ob := order[a.u.sec], order[b.u.sec]; oa != ob {
			return oa - ob
		}
		return a.u.idx - b.u.idx
	})
	out := make([]*unit, len(c.chosen))
	for i, s := range c.chosen {
		out[i] = s.u
	}
	return out
}

// addsTerm reports whether u holds a question word (by its own words or the sentence it
// continues) that no chosen unit holds by its own.
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

// pageOf is the path of the page a unit is on.
func pageOf(u *unit) string {
	path, _, _ := strings.Cut(u.sec.passage.URL, "#")
	return path
}

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

// nextUnit is the unit after u in its section; nil for the last.
func nextUnit(u *unit) *unit {
	if u.idx+1 < len(u.sec.units) {
		return u.sec.units[u.idx+1]
	}
	return nil
}
