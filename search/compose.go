package search

import (
	"slices"
	"strings"
)

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
		row := c.u.kind != kindSentence && c.own >= rowOwnShare*best.own && c.score >= rowShare*best.score
		// The best section's next most relevant sentence often holds the fact the best
		// one introduces ("... signed link ..." then "... valid for 15 minutes ...").
		sibling := c.u.sec == best.u.sec && c.score >= siblingShare*best.score
		if !row && !sibling && (c.score < sentenceShare*best.score || len(chosen) >= maxAnswerUnit) {
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
		if c.score < rowShare*best.score {
			break
		}
		if c.u.kind == kindSentence || c.own < rowOwnShare*best.own || c.own < minOwn || in(c.u) || total+len(c.u.text) > fillLen ||
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

func nextUnit(u *unit) *unit {
	if u.idx+1 < len(u.sec.units) {
		return u.sec.units[u.idx+1]
	}
	return nil
}
