package search

import (
	"context"
	"html"
	"strings"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk/content"
)

// docsDepth is how many sections a documentation search ranks, at most: the same number
// for every page of results, so that the order (BM25 retrieval, then the reranking of
// Passages) is the same whichever page is asked for and pages neither repeat nor skip.
const docsDepth = 100

// searchDocs is a site search restricted to the documentation: its results are the
// documentation sections (passages) that searchDocumentation and askQuestion use, ranked
// the same way, one result per section. A last word that is no word of the docs matches as
// a prefix (search as you type), like the site search; a whole word does not, so that a
// question gets the sections Passages gives it.
func (ix *Index) searchDocs(ctx context.Context, text string, limit, offset int) (*Page, error) {
	partial := ix.partialLastWord(text)
	ps, q, err := ix.rankPassages(ctx, text, docsDepth, partial != "")
	if err != nil {
		return nil, err
	}
	out := &Page{Results: []Result{}}
	if offset >= len(ps) {
		return out, nil
	}
	end := min(offset+limit, len(ps))
	for _, p := range ps[offset:end] {
		path, _, _ := strings.Cut(p.URL, "#")
		r := Result{Title: p.PageTitle, URL: p.URL, Type: content.TypeDocs}
		if p.Heading != "" {
			r.Title = p.PageTitle + ": " + p.Heading
		}
		if e, ok := ix.byPath[path]; ok {
			r.MarkdownURL, r.Updated = e.page.MarkdownPath(), e.page.Updated
		}
		r.Summary = clip(ix.opening(p), fragmentSize)
		snip := ix.snippet(p.URL, q, fragmentSize)
		if partial != "" && !ix.hasPrefixed(snip, partial) {
			// The word being typed matched: show where.
			if sec := ix.ans.sections[p.URL]; sec != nil {
				for _, u := range sec.units {
					if ix.hasPrefixed(u.text, partial) {
						snip = u.text
						break
					}
				}
			}
		}
		if snip == "" {
			snip = r.Summary
		}
		r.Highlight = ix.mark(clip(snip, fragmentSize+40), q, partial)
		out.Results = append(out.Results, r)
	}
	if end < len(ps) && end <= maxOffset {
		out.NextCursor = ix.encodeCursor(text, content.TypeDocs, limit, end)
	}
	return out, nil
}

// clip is s on one line, cut to about n characters at a word boundary, with "…" when cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > n/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

// opening is the start of a section as its units read (a table row as "column: value"),
// rather than its plain text, where a table's header runs into its rows.
func (ix *Index) opening(p Passage) string {
	sec := ix.ans.sections[p.URL]
	if sec == nil || len(sec.units) == 0 {
		return p.Text
	}
	var parts []string
	n := 0
	for _, u := range sec.units {
		if n > fragmentSize {
			break
		}
		parts = append(parts, u.text)
		n += len(u.text) + 1
	}
	return strings.Join(parts, " ")
}

// mark is text HTML-escaped, with the words that match the question's terms (or their
// synonyms), or begin with prefix when it is not "", in <mark>…</mark>.
func (ix *Index) mark(text string, q question, prefix string) string {
	want := termSet{}
	for _, t := range q.terms {
		want[t.term] = true
		for _, a := range t.alts {
			want[a] = true
		}
	}
	var b strings.Builder
	last := 0
	for _, tok := range ix.words.Analyze([]byte(text)) {
		start, end := tok.Start, tok.End
		if start < last || end > len(text) {
			continue
		}
		hit := prefix != "" && strings.HasPrefix(string(tok.Term), prefix)
		for _, t := range ix.terms(text[start:end]) {
			if want[t] {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		b.WriteString(html.EscapeString(text[last:start]))
		b.WriteString("<mark>")
		b.WriteString(html.EscapeString(text[start:end]))
		b.WriteString("</mark>")
		last = end
	}
	b.WriteString(html.EscapeString(text[last:]))
	return b.String()
}

// partialLastWord is the last word of a text when it is not a stop word and not a word of
// the documentation sections: being typed, it is the start of one. "" otherwise.
func (ix *Index) partialLastWord(text string) string {
	ws := ix.split(text)
	if len(ws) == 0 || ws[len(ws)-1].stem == "" {
		return ""
	}
	last := ws[len(ws)-1].raw
	if utf8.RuneCountInString(last) < prefixMin {
		return ""
	}
	for _, f := range passageFields {
		if fv := ix.passageVocab.fields[f.raw()]; fv != nil && fv.docs[last] > 0 {
			return ""
		}
	}
	return last
}

// hasPrefixed reports whether a word of text begins with prefix.
func (ix *Index) hasPrefixed(text, prefix string) bool {
	for _, tok := range ix.words.Analyze([]byte(text)) {
		if strings.HasPrefix(string(tok.Term), prefix) {
			return true
		}
	}
	return false
}
