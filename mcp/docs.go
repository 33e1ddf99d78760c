package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const docsInstructions = `This server answers questions about the answerdesk documentation: the customer API /api/v2 (messages, call recordings, To Dos, on-call contacts and External API dispatching), the public API /api/v1, authentication, errors, pagination, rate limits, versioning, operations and the MCP servers. It needs no credentials and changes nothing.

How to use it:
- askQuestion: for a direct question ("What is the maximum page_size for messages?"). It answers in a few sentences quoted from the docs, with the sections it used in sources. When answered is false the docs do not cover the question: say so rather than guess.
- searchDocumentation: to find the sections about a topic (page title, section, URL with #anchor, snippet), for example to explore before writing code.
- getPage: to read a whole page as Markdown (by path such as /docs/pagination, or URL) when the snippets are not enough, e.g. for request examples and every field of an object.
- The pages are also resources (resources/list, resources/read) at their .md URLs.

Quote numbers, limits, error codes, parameter and field names exactly as the docs write them, and cite the URLs (with #anchor) you relied on.`

// NewDocsServer is the documentation MCP server (/mcp/docs): passage search, pages and
// questions answered from the documentation, and the documentation pages as resources.
func NewDocsServer(cfg Config) *server.MCPServer {
	if cfg.Site == nil {
		panic("mcp: NewDocsServer needs Config.Site")
	}
	s := newServer("answerdesk-docs", "answerdesk documentation", cfg, docsInstructions,
		append(publicBudget(cfg), server.WithResourceCapabilities(false, false))...)
	d := &docs{cfg: cfg, base: cfg.base(), asker: cfg.Asker}
	if d.asker == nil {
		d.asker = &search.Asker{Index: cfg.Index, BaseURL: d.base, Logger: cfg.logger()}
	}
	s.AddTools(
		d.searchDocumentation(),
		d.getPage(),
		d.askQuestion(),
	)
	s.AddResources(d.resources()...)
	return s
}

type docs struct {
	cfg   Config
	base  string
	asker *search.Asker
}

// docPages are the documentation pages, in site order.
func (d *docs) docPages() []*content.Page {
	var out []*content.Page
	for _, pg := range d.cfg.Site.Pages {
		if pg.Type == content.TypeDocs {
			out = append(out, pg)
		}
	}
	return out
}

func (d *docs) index() (*search.Index, error) {
	if d.cfg.Index == nil {
		return nil, &answerdesk.Error{Code: answerdesk.EUNAVAILABLE, Message: "documentation search is not available on this server",
			Hint: "Read the pages with getPage instead (start with /docs)."}
	}
	return d.cfg.Index, nil
}

// section is a cited or matching section of a documentation page.
type section struct {
	Title   string `json:"title" jsonschema:"The page's title."`
	URL     string `json:"url" jsonschema:"URL of the section: the page's URL with the section's #anchor."`
	Section string `json:"section" jsonschema:"The section's heading (Introduction for the text before the first heading)."`
}

func (d *docs) cite(p search.Passage) section {
	return section{Title: p.PageTitle, URL: d.base + p.URL, Section: search.HeadingOr(p.Heading)}
}

// --- searchDocumentation ---

type passage struct {
	Title   string  `json:"title" jsonschema:"The page's title."`
	Section string  `json:"section" jsonschema:"The section's heading (Introduction for the text before the first heading)."`
	URL     string  `json:"url" jsonschema:"URL of the section: the page's URL with the section's #anchor."`
	Snippet string  `json:"snippet" jsonschema:"The sentences of the section that best match the query, as Markdown."`
	Score   float64 `json:"score" jsonschema:"Relevance (BM25); higher is better, comparable within one search only."`
}

type docSearch struct {
	Query   string    `json:"query" jsonschema:"The words searched for."`
	Results []passage `json:"results" jsonschema:"Matching sections, best first; empty when nothing matches."`
}

const (
	defaultPassages = 5
	maxPassages     = 20
	maxDocQuery     = 500
)

func (d *docs) searchDocumentation() server.ServerTool {
	opts := append(readOnly("Search the documentation"),
		mcpgo.WithString("query", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(maxDocQuery),
			mcpgo.Description("Words or a question to search for, e.g. \"webhook signature verification\" or \"page_size limit\". Any word may match (one typo per word of 4+ letters is tolerated); sections matching more words, and in their heading, rank first. At most 500 characters.")),
		mcpgo.WithInteger("limit", mcpgo.Min(1), mcpgo.Max(maxPassages), mcpgo.DefaultNumber(defaultPassages),
			mcpgo.Description("How many sections to return, 1 to 20; default 5.")),
		outputSchema[docSearch]())
	tool := toolDef("searchDocumentation",
		"Search the answerdesk documentation and return the best-matching sections (passages), best first: each with the page title, the section heading, the section's URL (with #anchor) and a snippet of its most relevant sentences. "+
			"Use it to find where the docs cover a topic; read a whole page with getPage, or ask a direct question with askQuestion.", opts...)
	return readTool(d.cfg, tool, d.search, func(out docSearch) string {
		var b strings.Builder
		if len(out.Results) == 0 {
			fmt.Fprintf(&b, "No documentation section matches %q. Try other words.\n", out.Query)
		}
		for i, r := range out.Results {
			fmt.Fprintf(&b, "%d. %s — %s\n   %s\n   %s\n", i+1, r.Title, r.Section, r.URL, r.Snippet)
		}
		return b.String()
	})
}

func (d *docs) search(ctx context.Context, req mcpgo.CallToolRequest) (docSearch, error) {
	a, err := readArgs(req, "query", "limit")
	if err != nil {
		return docSearch{}, err
	}
	q, err := a.str("query", maxDocQuery)
	if err != nil {
		return docSearch{}, err
	}
	if q == "" {
		return docSearch{}, invalidArg("query", "is required", "Pass the words to search for, e.g. {\"query\": \"rate limit headers\"}.")
	}
	limit, err := a.integer("limit", 1, maxPassages, defaultPassages)
	if err != nil {
		return docSearch{}, err
	}
	ix, err := d.index()
	if err != nil {
		return docSearch{}, err
	}
	ps, err := ix.Passages(ctx, q, limit)
	if err != nil {
		return docSearch{}, err
	}
	out := docSearch{Query: q, Results: []passage{}}
	for _, p := range ps {
		r := passage{Title: p.PageTitle, Section: search.HeadingOr(p.Heading), URL: d.base + p.URL, Score: round(p.Score), Snippet: p.Snippet}
		if r.Snippet == "" {
			r.Snippet = truncate(p.Text, 320)
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

func round(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 3, 64), 64)
	return v
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// --- getPage ---

type docPage struct {
	pageContent
	Sections []section `json:"sections" jsonschema:"The page's sections with their URLs (#anchor), in page order."`
}

func (d *docs) getPage() server.ServerTool {
	opts := append(readOnly("Read a documentation page"),
		mcpgo.WithString("path", mcpgo.MaxLength(maxLocatorLen),
			mcpgo.Description("The page's path, e.g. /docs/pagination (a bare slug such as pagination, a .md suffix and a #anchor are accepted). /docs lists every page. Give path or url, not both.")),
		mcpgo.WithString("url", mcpgo.MaxLength(maxLocatorLen),
			mcpgo.Description("The page's absolute URL, e.g. "+d.base+"/docs/pagination#page-and-page_size as searchDocumentation returns it. Give path or url, not both.")),
		outputSchema[docPage]())
	tool := toolDef("getPage",
		"Read one documentation page in full as Markdown, with its title, summary, last update and the list of its sections. "+
			"Use it when a search snippet or an answer is not enough, e.g. for request examples, every field of an object, or every error of an operation. Pass path or url; a page that does not exist is an error listing the pages.", opts...)
	return readTool(d.cfg, tool, d.page, func(out docPage) string { return out.Markdown })
}

func (d *docs) page(_ context.Context, req mcpgo.CallToolRequest) (docPage, error) {
	a, err := readArgs(req, "path", "url")
	if err != nil {
		return docPage{}, err
	}
	path, err := a.str("path", maxLocatorLen)
	if err != nil {
		return docPage{}, err
	}
	u, err := a.str("url", maxLocatorLen)
	if err != nil {
		return docPage{}, err
	}
	name, v := "path", path
	switch {
	case path != "" && u != "":
		return docPage{}, invalidArg("url", "was given together with path", "Pass either path (e.g. /docs/pagination) or url, not both.")
	case path == "" && u == "":
		return docPage{}, invalidArg("path", "is required (or url)", "Pass the page's path, e.g. {\"path\": \"/docs/pagination\"}, or its url.")
	case u != "":
		name, v = "url", u
		if !strings.Contains(u, "://") {
			return docPage{}, invalidArg("url", fmt.Sprintf("%q is not an absolute URL", u), "Pass an absolute URL such as "+d.base+"/docs/pagination, or pass the path as path.")
		}
	}
	p, err := locate(name, v, d.base)
	if err != nil {
		return docPage{}, err
	}
	if !strings.HasPrefix(p, "/docs/") && p != "/docs" {
		if _, ok := d.cfg.Site.Page("/docs" + p); ok {
			p = "/docs" + p // a bare slug: pagination
		}
	}
	pg, ok := d.cfg.Site.Page(p)
	if p != "/docs" && (!ok || pg.Type != content.TypeDocs) {
		var paths []string
		for _, dp := range d.docPages() {
			paths = append(paths, dp.Path)
		}
		what := fmt.Sprintf("no documentation page at %s", p)
		if ok {
			what = fmt.Sprintf("%s is a site page, not a documentation page", p)
		}
		return docPage{}, notFound(what, "The documentation pages are "+strings.Join(paths, ", ")+"; or find the page with searchDocumentation.")
	}
	pc, _ := renderPage(d.cfg.Site, p, d.base)
	out := docPage{pageContent: pc, Sections: []section{}}
	if d.cfg.Index != nil {
		for _, sec := range d.cfg.Index.Sections(p) {
			out.Sections = append(out.Sections, d.cite(sec))
		}
	}
	return out, nil
}

// --- askQuestion ---

// answer is askQuestion's result.
type answer struct {
	Question string    `json:"question" jsonschema:"The question asked."`
	Answered bool      `json:"answered" jsonschema:"False when the documentation does not cover the question; then answer says so and sources lists the three nearest sections."`
	Answer   string    `json:"answer" jsonschema:"The answer, in Markdown: sentences quoted from the documentation (extractive) or composed from its passages (llm)."`
	Method   string    `json:"method" jsonschema:"How the answer was made: extractive or llm."`
	Sources  []section `json:"sources" jsonschema:"The documentation sections the answer is taken from, each with the page title, the section's URL (#anchor) and heading."`
}

func (d *docs) askQuestion() server.ServerTool {
	opts := append(readOnly("Ask the documentation"),
		mcpgo.WithString("question", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(search.MaxQuestionLen),
			mcpgo.Description("A question about answerdesk in plain language, e.g. \"How long is call recording audio kept?\" or \"Which header carries the webhook signature?\". One question per call works best. At most 1000 characters.")),
		outputSchema[answer]())
	tool := toolDef("askQuestion",
		"Answer a question about answerdesk from its documentation, in 1 to 4 sentences taken from the docs (numbers, codes and parameter names as written), with the sections it used in sources (page title, URL with #anchor, section heading). "+
			"When the docs do not cover the question, answered is false, the answer says so and sources lists the three nearest sections: do not guess then. Use it for direct questions; use searchDocumentation to explore and getPage to read a page in full.", opts...)
	return readTool(d.cfg, tool, d.ask, func(out answer) string {
		var b strings.Builder
		b.WriteString(out.Answer)
		if len(out.Sources) > 0 {
			if out.Answered {
				b.WriteString("\n\nSources:\n")
			} else {
				b.WriteString("\n\nClosest sections:\n")
			}
			for _, s := range out.Sources {
				fmt.Fprintf(&b, "- %s — %s: %s\n", s.Title, s.Section, s.URL)
			}
		}
		return b.String()
	})
}

func (d *docs) ask(ctx context.Context, req mcpgo.CallToolRequest) (answer, error) {
	a, err := readArgs(req, "question")
	if err != nil {
		return answer{}, err
	}
	text, err := a.str("question", search.MaxQuestionLen)
	if err != nil {
		return answer{}, err
	}
	if text == "" {
		return answer{}, invalidArg("question", "is required", "Pass a question, e.g. {\"question\": \"How long is call recording audio kept?\"}.")
	}
	if _, err := d.index(); err != nil {
		return answer{}, err
	}
	r, err := d.asker.Ask(ctx, text)
	if err != nil {
		return answer{}, err
	}
	out := answer{Question: r.Question, Answered: r.Answered, Answer: r.Text, Method: r.Method, Sources: []section{}}
	for _, p := range r.Sources {
		out.Sources = append(out.Sources, d.cite(p))
	}
	return out, nil
}

// --- resources ---

// resources are the documentation pages (and the docs index) as Markdown resources, at the
// absolute URLs of their .md.
func (d *docs) resources() []server.ServerResource {
	var out []server.ServerResource
	add := func(path, name, title, description string, updated time.Time) {
		pc, ok := renderPage(d.cfg.Site, path, d.base)
		if !ok {
			return
		}
		opts := []mcpgo.ResourceOption{mcpgo.WithResourceTitle(title), mcpgo.WithResourceDescription(description),
			mcpgo.WithMIMEType("text/markdown"), mcpgo.WithResourceSize(int64(len(pc.Markdown)))}
		if !updated.IsZero() {
			opts = append(opts, mcpgo.WithLastModified(updated.UTC().Format(time.RFC3339)))
		}
		uri := pc.MarkdownURL
		res := mcpgo.NewResource(uri, name, opts...)
		out = append(out, server.ServerResource{Resource: res, Handler: func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: uri, MIMEType: "text/markdown", Text: pc.Markdown}}, nil
		}})
	}
	add("/docs", "docs", "Documentation", "The list of every answerdesk documentation page.", time.Time{})
	for _, pg := range d.docPages() {
		add(pg.Path, "docs/"+pg.Slug, pg.Title, pg.Summary, pg.Updated)
	}
	return out
}
