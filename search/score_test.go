package search

import (
	"strings"
	"testing"
)

// testSection is a section at url whose heading path holds the terms of context, with a
// unit for each text; a unit's terms are its text's words, and a word "kind:term" gives the
// unit that kind (table row or list item) or fact ("quantity").
func testSection(url, context string, texts ...string) *docSection {
	sec := &docSection{passage: &Passage{URL: url}, context: setOf(context), title: termSet{}}
	for i, text := range texts {
		u := &unit{sec: sec, idx: i, kind: kindSentence, terms: termSet{}, ctx: sec.context}
		var words []string
		for _, w := range strings.Fields(text) {
			switch w {
			case "kind:row":
				u.kind = kindRow
			case "quantity":
				u.quantity, u.digit = true, true
				words = append(words, "10 seconds")
			default:
				u.terms[w] = true
				u.seq = append(u.seq, w)
				words = append(words, w)
			}
		}
		u.text = strings.Join(words, " ")
		u.words = len(strings.Fields(u.text))
		sec.units = append(sec.units, u)
	}
	return sec
}

func setOf(s string) termSet {
	set := termSet{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// testQuestion is a question of terms of weight 1 each, all of them words of the docs.
func testQuestion(terms ...string) question {
	q := question{}
	for _, t := range terms {
		q.terms = append(q.terms, qterm{term: t, weight: 1})
		q.total++
	}
	q.fullTotal, q.known = q.total, len(terms)
	return q
}

// TestScore checks what a unit's score is made of: the share of the question it holds (a
// synonym for less, its heading path for less again), and the bonus of the kind of fact
// asked.
func TestScore(t *testing.T) {
	sec := testSection("/docs/x#retries", "", "retri schedul after failur ok", "retri after failur ok now", "backoff schedul after failur ok", "quantity retri schedul after ok")
	q := testQuestion("retri", "schedul")
	q.terms[0].alts = []string{"backoff"}
	both, one, syn := q.score(sec.units[0], 0), q.score(sec.units[1], 0), q.score(sec.units[2], 0)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"both words: coverage", both.coverage, 1},
		{"both words: own", both.own, 1},
		{"one word: coverage", one.coverage, 0.5},
		{"a synonym and a word: own", syn.own, (synonymShare + 1) / 2},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if !(both.score > syn.score && syn.score > one.score) {
		t.Errorf("scores %v, %v, %v: want the unit holding both words first, then the synonym's", both.score, syn.score, one.score)
	}
	// A word held only by the heading path counts ctxWeight of its own.
	head := testSection("/docs/x#schedule", "schedul", "retri after failur ok now")
	if got := q.score(head.units[0], 0).coverage; got != (1+ctxWeight)/2 {
		t.Errorf("heading coverage %v, want %v", got, (1+ctxWeight)/2)
	}
	// For "how long", a unit with an amount gains, one without loses.
	q.number = true
	if a, b := q.score(sec.units[3], 0).score, q.score(sec.units[0], 0).score; a-b < quantityBonus+noAmountPenalty-1e-9 {
		t.Errorf("with an amount %v, without %v: want a difference of at least %v", a, b, quantityBonus+noAmountPenalty)
	}
	// The retrieval score adds retrievalWeight of itself.
	q.number = false
	if d := q.score(sec.units[0], 1).score - q.score(sec.units[0], 0).score; d < retrievalWeight-1e-9 || d > retrievalWeight+1e-9 {
		t.Errorf("retrieval adds %v, want %v", d, retrievalWeight)
	}
}

// TestSimilarAndPairs checks the helpers of scoring: two units sharing most of their terms
// are similar, and pairs count only side by side.
func TestSimilarAndPairs(t *testing.T) {
	sec := testSection("/docs/x", "", "a b c d e", "a b c d f", "a x y z w")
	if !similar(sec.units[0], sec.units[1]) || similar(sec.units[0], sec.units[2]) {
		t.Error("similar: want the first two similar, the last not")
	}
	u := sec.units[0]
	if got := pairsIn([][2]string{{"a", "b"}, {"b", "d"}, {"d", "e"}, {"x", "y"}}, u.seq, u.terms); got != 2 {
		t.Errorf("pairsIn = %d, want 2", got)
	}
}
