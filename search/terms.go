package search

import (
	"regexp"
	"strings"
)

// "To Do" is two stop words to an English analyzer; the docs' name of the resource is
// made one word, todo, of the same length (so that match offsets stay right). Questions
// write it in any case, as "to do", "to-do" or "todo", but "what to do" is not the resource.
// "To Do's" becomes "todo's", which the analyzer takes as todo: not todo and a word "s".
var (
	toDoDocs     = regexp.MustCompile(`\b(?:To[ -]Do|to-do)('s|s?)\b`)
	toDoQuestion = regexp.MustCompile(`(?i)(^|\b(?:what|how|want|need|have|nothing|something|anything|things)\s+)?\bto[ -]do('s|s?)\b`)
)

func joinToDo(s string) string {
	if strings.Contains(s, "_to_do") {
		// A tool's name (`create_to_do`): its parts are create and todo, not create alone.
		s = toDoName.ReplaceAllString(s, "_todo$1 ")
	}
	if !strings.Contains(s, "To") && !strings.Contains(s, "to-do") {
		return s
	}
	return toDoDocs.ReplaceAllString(s, "todo$1 ")
}

var toDoName = regexp.MustCompile(`_to_do(s?)\b`)

// terms are the index analyzer's terms of a text, in order, with irregular verb forms
// mapped to their base ("kept" → keep) and the parts of a snake_case name added after it
// (page_size also matches "page" and "size").
func (ix *Index) terms(s string) []string {
	toks := ix.stems.Analyze([]byte(joinToDo(s)))
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		term := string(t.Term)
		if ix.ans != nil {
			if b, ok := ix.ans.irreg[term]; ok {
				term = b
			}
			if ix.ans.extraStp[term] {
				continue
			}
		}
		out = append(out, term)
	}
	return out
}

func (ix *Index) termSetOf(seq []string) termSet {
	set := termSet{}
	for _, t := range seq {
		ix.addTerm(set, t)
	}
	return set
}

func (ix *Index) addTerm(set termSet, t string) {
	set[t] = true
	for _, p := range ix.nameParts(t) {
		set[p] = true
	}
}

// nameParts are the terms of the words of a snake_case term (page_size: page, size); none
// for another term.
func (ix *Index) nameParts(t string) []string {
	if !strings.Contains(t, "_") {
		return nil
	}
	var out []string
	for _, p := range strings.Split(t, "_") {
		for _, pt := range ix.stems.Analyze([]byte(p)) {
			out = append(out, string(pt.Term))
		}
	}
	return out
}

// rawWords are the words of a text, lower-cased, stop words kept.
func (ix *Index) rawWords(s string) []string {
	toks := ix.words.Analyze([]byte(s))
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t.Term)
	}
	return out
}
