package search

import (
	"fmt"
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
