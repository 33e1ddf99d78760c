package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk/search/llm"
)

// NotCovered is the answer to a question the documentation does not cover.
const NotCovered = "The answerdesk documentation does not cover this question."

// MaxQuestionLen bounds a question, in characters: askQuestion's argument and /ask's q.
const MaxQuestionLen = 1000

// askPassages is how many of the retrieved passages a language model composes an answer
// from (the extractive answer weighs all of them).
const askPassages = 8

// Asker answers questions from the documentation: extractively (Index.Answer), or, with
// LLM set, composed by a language model from the same retrieved passages. The docs MCP
// server's askQuestion and the docs pages' "Ask the docs" box both ask it, so a person and
// an assistant get the same answer.
type Asker struct {
	Index *Index
	// LLM, when set, composes answers; when it fails or cites no passage the answer is the
	// extractive one.
	LLM *llm.Client
	// BaseURL prefixes the passages' URLs in the model's prompt (no trailing slash).
	BaseURL string
	Logger  *slog.Logger
}

// Reply is an answer to a question.
type Reply struct {
	Question string
	// Answered is false when the documentation does not cover the question; Text is then
	// NotCovered and Sources are the nearest sections.
	Answered bool
	Text     string    // Markdown
	Method   string    // "extractive" or "llm"
	Sources  []Passage // the sections the answer is from (or the nearest ones), best first
}

// Ask answers question from the documentation.
func (a *Asker) Ask(ctx context.Context, question string) (Reply, error) {
	ans, err := a.Index.Answer(ctx, question)
	if err != nil {
		return Reply{}, err
	}
	if a.LLM != nil && len(ans.Passages) > 0 {
		r, err := a.compose(ctx, question, ans.Passages[:min(askPassages, len(ans.Passages))])
		if err == nil {
			return r, nil
		}
		logger := a.Logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.WarnContext(ctx, "ask: the LLM endpoint failed; answering extractively", "err", err)
	}
	return extractive(ans), nil
}

// extractive is the reply of the index's extractive answer: the quotes with their
// sections, or "not covered" with the nearest sections.
func extractive(ans Answer) Reply {
	r := Reply{Question: ans.Question, Answered: ans.Answered, Method: "extractive", Sources: []Passage{}}
	if !ans.Answered {
		r.Text = NotCovered
		if len(ans.Nearest) > 0 {
			r.Text += " The nearest sections are listed in sources; they may help."
		}
		r.Sources = append(r.Sources, ans.Nearest...)
		return r
	}
	r.Text = ans.Text()
	r.Sources = append(r.Sources, ans.Sources...)
	return r
}

const llmSystem = `You answer questions about answerdesk using only the numbered documentation passages in the user's message.
Answer in 1 to 4 sentences. Keep numbers, limits, durations, error codes, HTTP statuses, header, parameter and field names exactly as the passages write them (use backticks for names).
Cite the passages you used as [1], [2], ... after the sentences they support.
If the passages do not answer the question, reply exactly: NOT_COVERED`

var citation = regexp.MustCompile(`\s*\[(\d{1,2})\]`)

// compose asks the language model for an answer from the retrieved passages only.
func (a *Asker) compose(ctx context.Context, question string, ps []Passage) (Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\nPassages:\n", question)
	for i, p := range ps {
		fmt.Fprintf(&b, "\n[%d] %s — %s (%s%s)\n%s\n", i+1, p.PageTitle, HeadingOr(p.Heading), a.BaseURL, p.URL, clip(p.Text, 3000))
	}
	reply, err := a.LLM.Complete(ctx, []llm.Message{{Role: "system", Content: llmSystem}, {Role: "user", Content: b.String()}})
	if err != nil {
		return Reply{}, err
	}
	r := Reply{Question: question, Method: "llm", Sources: []Passage{}}
	if strings.HasPrefix(strings.TrimSpace(reply), "NOT_COVERED") {
		r.Text = NotCovered
		return r, nil
	}
	r.Answered = true
	seen := map[int]bool{}
	for _, m := range citation.FindAllStringSubmatch(reply, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(ps) || seen[n] {
			continue
		}
		seen[n] = true
		r.Sources = append(r.Sources, ps[n-1])
	}
	if len(r.Sources) == 0 {
		// The model must cite the passages it used; an answer citing none cannot be
		// checked against the docs, so the extractive answer is given instead.
		return Reply{}, errors.New("the model's answer cites no passage")
	}
	r.Text = strings.TrimSpace(citation.ReplaceAllString(reply, ""))
	return r, nil
}

// HeadingOr is a section's heading as shown: Introduction for the text before the first.
func HeadingOr(h string) string {
	if h == "" {
		return "Introduction"
	}
	return h
}
