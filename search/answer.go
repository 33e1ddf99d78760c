package search

import (
	"context"
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
