package search

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLexicon checks that the embedded vocabulary files parse into the lists the answerer
// reads, with their entries in the order written.
func TestLexicon(t *testing.T) {
	l, err := loadLexicon(vocabFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"phrase", l.phrases["api key"], "API token"},
		{"phrase removed", l.phrases["on your side"], " "},
		{"phrase of three words", l.phrases["how far back"], "how long kept"},
		{"first synonym group", l.synonyms[0], []string{"webhook", "webhooks", "dispatch", "dispatching", "external", "callback", "callbacks"}},
		{"group with a phrase", l.synonyms[slices.IndexFunc(l.synonyms, func(g []string) bool { return g[0] == "timeout" })], []string{"timeout", "time-out", "times out"}},
		{"group with a comment", l.synonyms[slices.IndexFunc(l.synonyms, func(g []string) bool { return g[0] == "single" })], []string{"single", "individual", "id"}},
		{"one-way", l.oneWay[0], wordAlts{"look", []string{"format", "example"}}},
		{"stop word", l.stopSynonyms[0], wordAlts{"down", []string{"retry", "fail", "network", "error"}}},
		{"irregular", l.irregular[len(l.irregular)-1], wordAlts{"statuses", []string{"status"}}},
		{"asking", slices.Contains(l.asking, "explain"), true},
		{"measures", l.measures[:2], []string{"second", "seconds"}},
		{"calendar", l.calendar["monday"] && l.calendar["december"], true},
		{"environment", l.environment["behind"] && !l.environment["in"], true},
		{"imperative", l.imperatives["run"], true},
		{"abbreviation", l.abbreviations["e.g"], true},
		{"continuation", l.continuations[len(l.continuations)-2:], []string{"From then on", "After that"}},
	} {
		if !equalAny(tc.got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
	if n := len(l.synonyms); n < 50 {
		t.Errorf("%d synonym groups; the file is cut short", n)
	}
	// The derived matchers read the same lists.
	for s, want := range map[string]bool{"It takes `page`.": true, "From then on, it fails.": true, "Items are kept.": false, "Thence": false} {
		if continues(s) != want {
			t.Errorf("continues(%q) = %v, want %v", s, !want, want)
		}
	}
	if got := phrases.Replace("Where is my API Key?"); got != "Where is my API token?" {
		t.Errorf("phrases.Replace: %q", got)
	}
}

func equalAny(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case wordAlts:
		b := b.(wordAlts)
		return a.word == b.word && slices.Equal(a.alts, b.alts)
	}
	return a == b
}

// TestLoadLexiconErrors checks that a malformed vocabulary file is refused with its name
// and line, and that comments and blank lines are not entries.
func TestLoadLexiconErrors(t *testing.T) {
	good := fstest.MapFS{}
	for _, name := range []string{"phrases.txt", "synonyms.txt", "oneway.txt", "stopword-synonyms.txt", "irregular.txt",
		"asking.txt", "measures.txt", "calendar.txt", "environment.txt", "imperatives.txt", "abbreviations.txt", "continuations.txt"} {
		b, err := vocabFiles.ReadFile("vocab/" + name)
		if err != nil {
			t.Fatal(err)
		}
		good["vocab/"+name] = &fstest.MapFile{Data: b}
	}
	if _, err := loadLexicon(good); err != nil {
		t.Fatalf("the embedded files copied: %v", err)
	}
	for _, tc := range []struct {
		file, data, want string // want: in the error; "" for none
	}{
		{"phrases.txt", "# a comment\n\nfoo bar => baz  # trailing comment\n", ""},
		{"phrases.txt", "foo => a\nfoo => b\n", `phrases.txt: line 2: "foo" again`},
		{"phrases.txt", "Foo => bar\n", "not in lower case"},
		{"phrases.txt", "foo bar\n", "want \"phrase => replacement\""},
		{"synonyms.txt", "alone\n", "line 1: a group of one word"},
		{"synonyms.txt", "a, , b\n", "an empty item"},
		{"oneway.txt", "look format\n", `want "word: alternative, ..."`},
		{"oneway.txt", "a: b\na: c\n", `"a" again`},
		{"irregular.txt", "kept: keep, hold\n", "want one"},
		{"asking.txt", "two words\n", "is not one word"},
		{"calendar.txt", "Monday\n", "not in lower case"},
		{"continuations.txt", "From  then on\n", ""},
	} {
		fsys := fstest.MapFS{}
		for k, v := range good {
			fsys[k] = v
		}
		fsys["vocab/"+tc.file] = &fstest.MapFile{Data: []byte(tc.data)}
		_, err := loadLexicon(fsys)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %q: %v", tc.file, tc.data, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %q: error %v, want one with %q", tc.file, tc.data, err, tc.want)
		}
	}
	delete(good, "vocab/asking.txt")
	if _, err := loadLexicon(good); err == nil || !strings.Contains(err.Error(), "asking.txt") {
		t.Errorf("a missing file: error %v", err)
	}
}

// TestVocabLines checks the entries of a file's text: comments and blanks removed, line
// numbers kept.
func TestVocabLines(t *testing.T) {
	got := vocabLines("# head\n\n  a b  \nc # note\n#\n")
	want := []vocabLine{{3, "a b"}, {4, "c"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
