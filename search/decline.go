package search

import (
	"regexp"
	"slices"
	"strings"
)

// declinesBest reports whether the docs do not cover the question, cands being its scored
// units, best first: it names something the docs never mention, or another product's own
// settings, or its best unit does not answer it (declines), or scores below minScore, or it
// names a thing by a word the docs never use and its best unit does not rank very well.
func (ix *Index) declinesBest(q question, text string, minScore float64, cands []scored) bool {
	best := cands[0]
	if ix.namesUnknown(text) || ix.namesOtherProduct(text, best.u.sec) {
		return true
	}
	if debugDecide != nil {
		debugDecide(q, cands)
	}
	return !debugNoDecline && (q.declines(best) || best.score < minScore ||
		ix.namesUnknownThing(text) && (q.beyondHeading(best.u) == 0 || best.score < minThingScore))
}

// declines reports whether the docs do not cover the question, its best unit being best.
// The best unit answers when it holds a word of the question beyond units of measure, the
// question has two words of the docs (or one heading the best unit's section), the question
// is not mostly in words the docs never use, and either the unit holds minCoverage and
// minOwn and scores minWeakScore, or one of the ways below holds.
func (q question) declines(best scored) bool {
	// Below minWeakScore a best unit answers only through its section, the question's
	// concepts or a name it writes, however much of the question it holds: an off-topic
	// question sharing a common pair of words with a sentence ("port my phone number")
	// reaches a fair share of it, seldom that score.
	weak := best.score < minWeakScore
	if !q.holdsTopic(best.u) {
		return true
	}
	// A question with one word of the docs ("Who founded answerdesk?") is about the docs
	// when that word heads the answering section ("What is pagination?"): a sentence merely
	// using it is a coincidence. A status supposed ("Should that be 403?") is the exception:
	// the docs say what each status means.
	if q.known <= 1 && !q.status && q.headingCoverage(best.u.sec) == 0 {
		return true
	}
	if q.fullTotal > 0 && q.unknownFull/q.fullTotal >= maxUnknownShare && (best.score < minScoreMostlyUnknown || q.known <= 1) {
		// Mostly in words the docs never use ("reset my iPhone"): about something else,
		// unless two or more known words match very well; one word of the docs among them
		// ("file" in "how do I file my taxes") is a coincidence however well it matches.
		return true
	} else if best.coverage < minCoverage || best.own < minOwn || weak {
		// No one unit holds enough of the question, but its section may: the heading and
		// units together hold nearly all of the question's words ("Which statuses does a
		// message go through?" under "Message statuses", the statuses in a list).
		bySection := best.own >= minOwnInSection && q.sectionCoverage(best.u.sec) >= minSectionCoverage
		// Or the section's heading is about the question ("How tokens are stored" for "Is my
		// token stored in plain text?"): off-topic questions share a word or two with a
		// sentence, seldom a good share of a heading.
		byHeading := best.coverage >= minCoverageUnderHeading && q.headingCoverage(best.u.sec) >= minHeadingCoverage &&
			best.score >= minHeadingScore
		// Or it ranks well above what off-topic questions reach while holding a fair share of
		// the question by its own words.
		byRank := best.coverage >= minCoverageUnderHeading && best.own >= minOwn && best.score >= minStrongScore
		// Or the question names several things the docs have headings for ("Is my API token
		// stored in plain text on the server?": api, token, store, server), and the best unit
		// holds two of them by its own words or its heading's: a question in the docs' own
		// concepts is about the docs, however its other words are phrased, while an
		// off-topic one in the product's words ("can the same receptionist always answer our
		// line?") reaches a unit holding one.
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

// productName is a name after a possessive or a preposition that does not
// say where answerdesk runs ("my Twilio messaging service", "the limit for the OpenAI API")
// or one that does (environmentWords).
var productName = regexp.MustCompile(`\b(\w+)\s+(?:(?:a|an|the)\s+)?([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b`)

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

// debugDecide, when set (by a test), sees every question with its scored units, best first.
var debugDecide func(question, []scored)

// debugNoDecline, when set (by a test), answers every question: to measure the threshold.
var debugNoDecline bool
