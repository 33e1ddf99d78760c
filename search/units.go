package search

import (
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// maxWholeUnit is the length above which a list item is split into its sentences after all.
const maxWholeUnit = 400

// maxQuotedCode is the longest code block quoted with the sentence that introduces it.
const maxQuotedCode = 160

// blockCode is a code block's lines joined by spaces, leaving out comment lines and lines
// holding a backquote (it is quoted as one code span) and trimming line continuations.
func blockCode(n ast.Node, src []byte) string {
	lines := n.Lines()
	var parts []string
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSpace(string(seg.Value(src)))
		line = strings.TrimSuffix(line, "\\")
		if line == "" || strings.HasPrefix(line, "# ") || strings.Contains(line, "`") {
			continue
		}
		parts = append(parts, strings.TrimSpace(line))
	}
	return strings.Join(parts, " ")
}

// collectUnits appends the quotable units of a top-level block of a section: the sentences
// of its paragraphs, its list items and its table rows, in document order. Code blocks and
// raw HTML are left out: an answer quotes prose. A "### " heading is not a unit; it becomes
// the sub heading of the units after it (*sub).
func collectUnits(out []unitSrc, n ast.Node, src []byte, sub *string) []unitSrc {
	inline := func(n ast.Node) string {
		w := textWriter{keepCode: true}
		writePlain(&w, n, src)
		return strings.Join(strings.Fields(w.String()), " ")
	}
	switch n := n.(type) {
	case *ast.Heading:
		*sub = inline(n)
	case *ast.Paragraph, *ast.TextBlock:
		text := inline(n)
		// A lead-in to a code block says nothing alone: a short block (a command, a header,
		// a small body) is quoted with it, as code; after a longer one it ends the thought.
		if next := n.NextSibling(); next != nil && strings.HasSuffix(text, ":") {
			switch next := next.(type) {
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				if code := blockCode(next, src); code != "" && len(code) <= maxQuotedCode {
					text += " `" + code + "`"
				} else {
					text = strings.TrimSuffix(text, ":") + "."
				}
			}
		}
		for _, s := range sentences(text) {
			out = append(out, unitSrc{text: s, kind: kindSentence, sub: *sub})
		}
	case *ast.List:
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			var own []string
			var nested []ast.Node
			for c := it.FirstChild(); c != nil; c = c.NextSibling() {
				if _, ok := c.(*ast.List); ok {
					nested = append(nested, c)
					continue
				}
				if t := inline(c); t != "" {
					own = append(own, t)
				}
			}
			text := strings.Join(own, " ")
			if len(text) > maxWholeUnit {
				for _, s := range sentences(text) {
					out = append(out, unitSrc{text: s, kind: kindItem, sub: *sub})
				}
			} else if text != "" {
				out = append(out, unitSrc{text: text, kind: kindItem, sub: *sub})
			}
			for _, c := range nested {
				out = collectUnits(out, c, src, sub)
			}
		}
	case *ast.Blockquote:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			out = collectUnits(out, c, src, sub)
		}
	case *extast.Table:
		var header []string
		for r := n.FirstChild(); r != nil; r = r.NextSibling() {
			var cells []string
			for c := r.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, inline(c))
			}
			if _, ok := r.(*extast.TableHeader); ok {
				header = cells
				continue
			}
			if t := tableRow(header, cells); t != "" {
				// The column names are a row's context, as a heading is a sentence's: a row
				// of a "Property | Rule" table answers "which property ...".
				out = append(out, unitSrc{text: t, kind: kindRow, sub: strings.TrimSpace(*sub + " " + strings.Join(header, " "))})
			}
		}
	}
	return out
}

// tableRow renders a row as one quotable line: "first: second" for two columns, otherwise
// "first — Column: value; Column: value", so that a row says what its cells mean.
func tableRow(header, row []string) string {
	if strings.Join(row, "") == "" {
		return ""
	}
	if len(row) == 2 {
		if row[1] == "" {
			return row[0]
		}
		return strings.TrimSuffix(row[0], ":") + ": " + row[1]
	}
	var parts []string
	for i := 1; i < len(row); i++ {
		if row[i] == "" {
			continue
		}
		if i < len(header) && header[i] != "" {
			parts = append(parts, header[i]+": "+row[i])
		} else {
			parts = append(parts, row[i])
		}
	}
	if len(parts) == 0 {
		return row[0]
	}
	if row[0] == "" {
		return strings.Join(parts, "; ")
	}
	return row[0] + " — " + strings.Join(parts, "; ")
}

// sentences splits a paragraph at the ends of its sentences: ".", "!" or "?" followed by a
// blank and a capital letter, digit, code span, quote or bracket, outside `code`, and not
// after an abbreviation such as "e.g.".
func sentences(s string) []string {
	var out []string
	start := 0
	code := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '`' {
			code = !code
			continue
		}
		if code || (c != '.' && c != '!' && c != '?') || i+2 >= len(rs) || rs[i+1] != ' ' {
			continue
		}
		next := rs[i+2]
		if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune("`\"([*", next) {
			continue
		}
		if c == '.' {
			w := i - 1
			for w >= 0 && rs[w] != ' ' {
				w--
			}
			word := strings.ToLower(strings.TrimLeft(string(rs[w+1:i]), "(\"*`"))
			if abbreviations[word] {
				continue
			}
		}
		if sent := strings.TrimSpace(string(rs[start : i+1])); sent != "" {
			out = append(out, sent)
		}
		start = i + 2
	}
	if sent := strings.TrimSpace(string(rs[start:])); sent != "" {
		out = append(out, sent)
	}
	// A sentence of a few words ("HTTP 422.") cannot stand alone: it goes with the next.
	for i := 0; i+1 < len(out); i++ {
		if len(strings.Fields(out[i])) < minSentenceWords {
			out[i] += " " + out[i+1]
			out = append(out[:i+1], out[i+2:]...)
			i--
		}
	}
	return out
}

// minSentenceWords is the fewest words of a sentence quoted alone.
const minSentenceWords = 4
