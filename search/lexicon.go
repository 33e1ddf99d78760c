package search

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// vocabFiles are the answerer's word lists (vocab/README.md describes their formats).
//
//go:embed vocab/*.txt
var vocabFiles embed.FS

// lexicon is the vocabulary the answerer reads questions and the docs with, as the files of
// vocab/ give it: words as written, their terms made with the index's analyzer when the
// index is built.
type lexicon struct {
	phrases       map[string]string // phrases.txt: a question's phrase (lower case) → the docs' words
	synonyms      [][]string        // synonyms.txt: groups of words standing for one another
	oneWay        []wordAlts        // oneway.txt: a word → the words it stands for
	stopSynonyms  []wordAlts        // stopword-synonyms.txt: a stop word → the words it stands for
	irregular     []wordAlts        // irregular.txt: an irregular form → its base form (one alt)
	asking        []string          // asking.txt: words of asking, not of the subject
	measures      []string          // measures.txt: units of time and amount
	calendar      map[string]bool   // calendar.txt: days and months
	environment   map[string]bool   // environment.txt: words putting a product beside answerdesk
	imperatives   map[string]bool   // imperatives.txt: verbs opening an instruction
	abbreviations map[string]bool   // abbreviations.txt: abbreviations ending in a period
	continuations []string          // continuations.txt: openings of a sentence going on from the last
}

// wordAlts is a word and the words it stands for, in the order written.
type wordAlts struct {
	word string
	alts []string
}

// lex is the embedded vocabulary.
var lex = mustLoadLexicon(vocabFiles)

// Derived from lex.
var (
	phrases          = newPhraseMap(lex.phrases)
	calendarWords    = lex.calendar
	imperatives      = lex.imperatives
	abbreviations    = lex.abbreviations
	environmentWords = lex.environment
	// continuation opens a sentence that goes on from the one before it.
	continuation = regexp.MustCompile(`^(` + strings.Join(quoteAll(lex.continuations), "|") + `)\b`)
)

// mustLoadLexicon is loadLexicon for the embedded files, which are part of the program: an
// error there is a bug, reported at start-up.
func mustLoadLexicon(fsys fs.FS) *lexicon {
	l, err := loadLexicon(fsys)
	if err != nil {
		panic(err)
	}
	return l
}

// loadLexicon reads the vocabulary files of fsys's vocab directory.
func loadLexicon(fsys fs.FS) (*lexicon, error) {
	r := &vocabReader{fsys: fsys}
	l := &lexicon{
		phrases:       readFile(r, "phrases.txt", parsePhrases),
		synonyms:      readFile(r, "synonyms.txt", parseGroups),
		oneWay:        readFile(r, "oneway.txt", parseAlts),
		stopSynonyms:  readFile(r, "stopword-synonyms.txt", parseAlts),
		irregular:     readFile(r, "irregular.txt", parseForms),
		asking:        readFile(r, "asking.txt", parseWords),
		measures:      readFile(r, "measures.txt", parseWords),
		calendar:      readFile(r, "calendar.txt", parseSet),
		environment:   readFile(r, "environment.txt", parseSet),
		imperatives:   readFile(r, "imperatives.txt", parseSet),
		abbreviations: readFile(r, "abbreviations.txt", parseSet),
		continuations: readFile(r, "continuations.txt", parseEntries),
	}
	if r.err != nil {
		return nil, r.err
	}
	return l, nil
}

// vocabReader reads vocabulary files, keeping the first error.
type vocabReader struct {
	fsys fs.FS
	err  error
}

// readFile parses vocab/name with parse; the zero value once r has failed.
func readFile[T any](r *vocabReader, name string, parse func([]vocabLine) (T, error)) T {
	var zero T
	if r.err != nil {
		return zero
	}
	b, err := fs.ReadFile(r.fsys, "vocab/"+name)
	if err != nil {
		r.err = fmt.Errorf("search: read vocabulary: %w", err)
		return zero
	}
	v, err := parse(vocabLines(string(b)))
	if err != nil {
		r.err = fmt.Errorf("search: vocab/%s: %w", name, err)
		return zero
	}
	return v
}

// vocabLine is an entry of a vocabulary file: a line with its comment and outer blanks
// removed, and its number.
type vocabLine struct {
	no   int
	text string
}

// vocabLines are the entries of a vocabulary file's text.
func vocabLines(text string) []vocabLine {
	var out []vocabLine
	for i, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, vocabLine{no: i + 1, text: line})
		}
	}
	return out
}

// lineError is an error of a vocabulary file's line.
func lineError(l vocabLine, format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{l.no}, args...)...)
}

// parseWords is one word a line.
func parseWords(lines []vocabLine) ([]string, error) {
	var out []string
	for _, l := range lines {
		if len(strings.Fields(l.text)) != 1 {
			return nil, lineError(l, "%q is not one word", l.text)
		}
		out = append(out, l.text)
	}
	return out, nil
}

// parseEntries is one entry of one or more words a line, its blanks collapsed.
func parseEntries(lines []vocabLine) ([]string, error) {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Join(strings.Fields(l.text), " "))
	}
	return out, nil
}

// parseSet is one word a line, in lower case, as a set.
func parseSet(lines []vocabLine) (map[string]bool, error) {
	words, err := parseWords(lines)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for i, w := range words {
		if w != strings.ToLower(w) {
			return nil, lineError(lines[i], "%q is not in lower case", w)
		}
		set[w] = true
	}
	return set, nil
}

// parseList splits a comma-separated list into its items, blanks trimmed.
func parseList(l vocabLine, s string) ([]string, error) {
	var out []string
	for _, item := range strings.Split(s, ",") {
		item = strings.Join(strings.Fields(item), " ")
		if item == "" {
			return nil, lineError(l, "an empty item")
		}
		out = append(out, item)
	}
	return out, nil
}

// parseGroups is one comma-separated group of two or more words a line.
func parseGroups(lines []vocabLine) ([][]string, error) {
	var out [][]string
	for _, l := range lines {
		g, err := parseList(l, l.text)
		if err != nil {
			return nil, err
		}
		if len(g) < 2 {
			return nil, lineError(l, "a group of one word")
		}
		out = append(out, g)
	}
	return out, nil
}

// parseForms is "form: base" a line, each form once.
func parseForms(lines []vocabLine) ([]wordAlts, error) {
	out, err := parseAlts(lines)
	for i, f := range out {
		if err == nil && len(f.alts) != 1 {
			err = lineError(lines[i], "%q has %d base forms, want one", f.word, len(f.alts))
		}
	}
	return out, err
}

// parseAlts is "word: alt, alt" a line, each word once.
func parseAlts(lines []vocabLine) ([]wordAlts, error) {
	var out []wordAlts
	seen := map[string]bool{}
	for _, l := range lines {
		word, rest, ok := strings.Cut(l.text, ":")
		word = strings.TrimSpace(word)
		if !ok || word == "" || len(strings.Fields(word)) != 1 {
			return nil, lineError(l, `want "word: alternative, ..."`)
		}
		if seen[word] {
			return nil, lineError(l, "%q again", word)
		}
		seen[word] = true
		alts, err := parseList(l, rest)
		if err != nil {
			return nil, err
		}
		out = append(out, wordAlts{word: word, alts: alts})
	}
	return out, nil
}

// parsePhrases is "phrase => replacement" a line, each phrase once and in lower case; an
// empty replacement is a blank.
func parsePhrases(lines []vocabLine) (map[string]string, error) {
	out := map[string]string{}
	for _, l := range lines {
		from, to, ok := strings.Cut(l.text, "=>")
		from = strings.Join(strings.Fields(from), " ")
		if !ok || from == "" {
			return nil, lineError(l, `want "phrase => replacement"`)
		}
		if from != strings.ToLower(from) {
			return nil, lineError(l, "%q is not in lower case", from)
		}
		if _, dup := out[from]; dup {
			return nil, lineError(l, "%q again", from)
		}
		if to = strings.TrimSpace(to); to == "" {
			to = " "
		}
		out[from] = to
	}
	return out, nil
}

// quoteAll is the words as regular expressions matching them literally.
func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = regexp.QuoteMeta(w)
	}
	return out
}
