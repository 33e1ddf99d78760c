package search

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Passages finds the documentation sections that best match a question, best first: any
// of its words may match (stop words do not count), in the heading, the page title or the
// text, with one typo allowed per word of fuzzyMin characters or more. limit is 1..MaxLimit,
// 0 for DefaultPassages.
func (ix *Index) Passages(ctx context.Context, question string, limit int) ([]Passage, error) {
	return ix.passagesFor(ctx, question, limit, true)
}

// passagesFor is Passages; snippets are left out without withSnippets (an answer needs
// them for its sources only).
func (ix *Index) passagesFor(ctx context.Context, question string, limit int, withSnippets bool) ([]Passage, error) {
	if normalize(question) == "" {
		return nil, ErrEmptyQuery
	}
	if limit == 0 {
		limit = DefaultPassages
	}
	if limit < 1 || limit > MaxLimit {
		return nil, ErrBadLimit
	}
	out, q, err := ix.rankPassages(ctx, question, max(limit, rerankDepth), false)
	if err != nil {
		return nil, err
	}
	if len(out) > limit {
		out = out[:limit]
	}
	if withSnippets {
		for i := range out {
			out[i].Snippet = ix.snippet(out[i].URL, q, snippetLen)
		}
	}
	return out, nil
}

// rankPassages retrieves up to depth passages for a text by BM25 (any word, synonyms for
// less; with prefix, the last word also as the start of a word) and reranks them by their
// best unit (see rerank). It returns them best first, with the prepared question.
func (ix *Index) rankPassages(ctx context.Context, words string, depth int, prefix bool) ([]Passage, question, error) {
	text := normalize(words)
	if text == "" {
		return nil, question{}, ErrEmptyQuery
	}
	out := []Passage{}
	_, should := buildQuery(ix.split(joinToDoQuestion(text)), passageFields, false, prefix, ix.passageVocab)
	q := ix.prepare(text)
	if len(should) == 0 && len(q.synQ) == 0 {
		return out, q, nil
	}
	// The synonyms a docs reader uses ("webhook" for dispatching) match too, for less.
	for _, t := range q.terms {
		for _, alt := range t.alts {
			for _, f := range passageFields[:1] {
				tq := query.NewTermQuery(alt)
				tq.SetField(f.name)
				tq.SetBoost(f.boost * synonymBoost)
				should = append(should, tq)
			}
			tq := query.NewTermQuery(alt)
			tq.SetField("text")
			tq.SetBoost(synonymBoost)
			should = append(should, tq)
		}
	}
	bq := query.NewDisjunctionQuery(should)
	req := bleve.NewSearchRequestOptions(bq, depth, 0, false)
	req.SortBy(byScoreThenID)
	res, err := ix.passages.SearchInContext(ctx, req)
	if err != nil {
		return nil, q, fmt.Errorf("search: %w", err)
	}
	for _, h := range res.Hits {
		if p, ok := ix.byID[h.ID]; ok {
			ps := *p
			ps.Score, ps.bm25 = h.Score, h.Score
			out = append(out, ps)
		}
	}
	// The best rerankDepth by BM25 are reranked among themselves (their priors are shares of
	// that set); any deeper ones follow in BM25 order. So a passage's rank does not depend
	// on how many were asked for: searchDocumentation, askQuestion and a docs search
	// agree.
	ix.rerank(q, out[:min(len(out), rerankDepth)])
	return out, q, nil
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
				got[u] = synonymShare * t.weight
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

// questionStems are the stems of a question's words, stop words left out: the terms that
// partsPassages and bodyPassages look up, made once for both.
func (ix *Index) questionStems(text string) []string {
	var stems []string
	for _, w := range ix.split(joinToDoQuestion(text)) {
		if w.stem != "" {
			stems = append(stems, w.stem)
		}
	}
	return stems
}

// partsPassages are the passages whose snake_case and CamelCase names hold the most of the
// question's words (`signing_secret` for "signing secret"), best first.
func (ix *Index) partsPassages(ctx context.Context, stems []string) ([]Passage, error) {
	return ix.fieldPassages(ctx, stems, partsField.name, maxPartsPassages)
}

// bodyPassages are the passages whose text holds the most of the question's own words,
// best first: a heading match weighs several times a body match in retrieval, so a section
// that says it all in its text under a heading of other words ("Sending the token" for
// "which headers does every request to the customer API need?") can rank below 32 others.
func (ix *Index) bodyPassages(ctx context.Context, stems []string) ([]Passage, error) {
	return ix.fieldPassages(ctx, stems, "text", maxBodyPassages)
}

// fieldPassages are the n passages whose field holds the most of the stems.
func (ix *Index) fieldPassages(ctx context.Context, stems []string, fieldName string, n int) ([]Passage, error) {
	if len(stems) == 0 {
		return nil, nil
	}
	parts := make([]query.Query, len(stems))
	for i, stem := range stems {
		tq := query.NewTermQuery(stem)
		tq.SetField(fieldName)
		parts[i] = tq
	}
	req := bleve.NewSearchRequestOptions(query.NewDisjunctionQuery(parts), n, 0, false)
	req.SortBy(byScoreThenID)
	res, err := ix.passages.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %s: %w", fieldName, err)
	}
	var out []Passage
	for _, h := range res.Hits {
		if p, ok := ix.byID[h.ID]; ok {
			out = append(out, *p)
		}
	}
	return out, nil
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
	if r := []rune(s); len(r) > maxLen+snippetSlack {
		s = string(r[:maxLen]) + "…"
	}
	return s
}
