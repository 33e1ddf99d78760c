package search

import (
	"bytes"
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/answerdesk/answerdesk/content"
)

// markdown parses page bodies as content.Load renders them (GFM, heading IDs).
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()))

// h2ID finds the id attributes of the level-2 headings of rendered HTML.
var h2ID = regexp.MustCompile(`<h2 id="([^"]*)"`)

// section is a part of a page under one "## " heading; the part before the first one has
// an empty heading and anchor.
type section struct {
	heading string
	anchor  string
	text    string
	units   []unitSrc // the quotable parts, for question answering
}

// unitKind is what a unit of a section is: a sentence of a paragraph, a list item, or a
// table row. Items and rows are quoted whole, so that no part of them stands alone.
type unitKind uint8

const (
	kindSentence unitKind = iota
	kindItem
	kindRow
)

// unitSrc is a quotable part of a section as written: code spans keep their backquotes,
// links keep only their text; sub is the "### " heading it is under, if any.
type unitSrc struct {
	text string
	kind unitKind
	sub  string
}

// plainDoc is a page body reduced to plain text.
type plainDoc struct {
	text     string    // the whole body
	sections []section // split at top-level level-2 headings
}

// parseMarkdown strips Markdown syntax from a page body and splits it into sections. When
// rendered (the page's HTML) has as many level-2 headings with ids as the body, their ids
// are the anchors.
func parseMarkdown(body, rendered string) plainDoc {
	src := []byte(body)
	root := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext(parser.WithIDs(content.NewHeadingIDs()))))

	// Every level-2 heading, nested ones included, in document order: the order of the
	// <h2> elements of the rendered page.
	var h2s []*ast.Heading
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Level == 2 {
			h2s = append(h2s, h)
		}
		return ast.WalkContinue, nil
	})
	anchors := map[*ast.Heading]string{}
	for _, h := range h2s {
		if id, ok := h.AttributeString("id"); ok {
			if b, ok := id.([]byte); ok {
				anchors[h] = string(b)
			}
		}
	}
	if rendered != "" {
		if m := h2ID.FindAllStringSubmatch(rendered, -1); len(m) == len(h2s) {
			for i, h := range h2s {
				anchors[h] = html.UnescapeString(m[i][1])
			}
		}
	}

	var all textWriter
	var doc plainDoc
	cur := section{}
	var sec textWriter
	sub := ""
	flush := func() {
		cur.text = sec.String()
		if cur.heading != "" || cur.anchor != "" || cur.text != "" {
			doc.sections = append(doc.sections, cur)
		}
		sec = textWriter{}
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			flush()
			var hw textWriter
			writePlain(&hw, h, src)
			cur = section{heading: hw.String(), anchor: anchors[h]}
			sub = ""
			writePlain(&all, n, src)
			continue
		}
		writePlain(&all, n, src)
		writePlain(&sec, n, src)
		cur.units = collectUnits(cur.units, n, src, &sub)
	}
	flush()
	doc.text = all.String()
	return doc
}

// textWriter collects plain text, separating blocks by a newline and collapsing runs of
// blank space.
type textWriter struct {
	b        strings.Builder
	pending  string // separator to write before the next text
	keepCode bool   // code spans keep their backquotes (text to quote, not to index)
}

func (w *textWriter) block() {
	if w.b.Len() > 0 {
		w.pending = "\n"
	}
}

func (w *textWriter) space() {
	if w.b.Len() > 0 && w.pending == "" {
		w.pending = " "
	}
}

func (w *textWriter) write(s string) {
	if s == "" {
		return
	}
	if w.pending != "" {
		// Leading blanks of the new text are absorbed by the separator.
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return
		}
		w.b.WriteString(w.pending)
		w.pending = ""
	}
	w.b.WriteString(s)
}

func (w *textWriter) String() string { return strings.TrimSpace(w.b.String()) }

var (
	htmlTag    = regexp.MustCompile(`<[^>]*>`)
	blankRun   = regexp.MustCompile(`[ \t]+`)
	trailBlank = regexp.MustCompile(`[ \t]+\n`)
)

// writePlain writes the text of a node and its descendants: the words a reader sees, not
// the Markdown syntax, link destinations, or raw HTML tags.
func writePlain(w *textWriter, node ast.Node, src []byte) {
	_ = ast.Walk(node, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.Document:
			return ast.WalkContinue, nil
		case *ast.Text:
			if !entering {
				return ast.WalkContinue, nil
			}
			v := n.Segment.Value(src)
			if !n.IsRaw() {
				v = unescape(v)
			}
			w.write(string(v))
			if n.HardLineBreak() {
				w.block()
			} else if n.SoftLineBreak() {
				w.space()
			}
			return ast.WalkContinue, nil
		case *ast.String:
			if entering {
				v := n.Value
				if !n.IsRaw() && !n.IsCode() {
					v = unescape(v)
				}
				w.write(string(v))
			}
			return ast.WalkContinue, nil
		case *ast.CodeSpan:
			if entering {
				var b bytes.Buffer
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*ast.Text); ok {
						b.Write(t.Segment.Value(src))
					} else if s, ok := c.(*ast.String); ok {
						b.Write(s.Value)
					}
				}
				code := strings.ReplaceAll(b.String(), "\n", " ")
				if w.keepCode {
					code = "`" + code + "`"
				}
				w.write(code)
			}
			return ast.WalkSkipChildren, nil
		case *ast.AutoLink:
			if entering {
				w.write(string(n.Label(src)))
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			// An inline tag: markup, not text.
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			if entering {
				w.block()
				raw := blockText(n, src)
				if n.HasClosure() {
					raw += string(n.ClosureLine.Value(src))
				}
				s := htmlTag.ReplaceAllString(raw, " ")
				s = string(unescape([]byte(s)))
				w.write(strings.TrimSpace(trailBlank.ReplaceAllString(blankRun.ReplaceAllString(s, " "), "\n")))
				w.block()
			}
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering {
				w.block()
				w.write(strings.TrimRight(blockText(n, src), "\n"))
				w.block()
			}
			return ast.WalkSkipChildren, nil
		case *extast.TaskCheckBox:
			return ast.WalkSkipChildren, nil
		case *extast.TableCell:
			if entering {
				w.space()
			}
			return ast.WalkContinue, nil
		}
		if n.Type() == ast.TypeBlock {
			w.block()
		}
		return ast.WalkContinue, nil
	})
}

// unescape resolves backslash escapes and character references, as goldmark's HTML
// writer does before escaping the text again.
func unescape(v []byte) []byte {
	if bytes.IndexByte(v, '\\') >= 0 {
		v = util.UnescapePunctuations(v)
	}
	if bytes.IndexByte(v, '&') >= 0 {
		v = util.ResolveNumericReferences(v)
		v = util.ResolveEntityNames(v)
	}
	return v
}

// blockText is a block's lines as written in the source.
func blockText(n ast.Node, src []byte) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}
