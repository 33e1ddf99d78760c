package rest

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
)

// askReply is the JSON of GET /ask: askQuestion's result.
type askReply struct {
	Question string      `json:"question"`
	Answered bool        `json:"answered"`
	Answer   string      `json:"answer"`
	Method   string      `json:"method"`
	Sources  []askSource `json:"sources"`
}

type askSource struct {
	Title   string `json:"title"`
	Section string `json:"section"`
	URL     string `json:"url"`
}

// askView is the ask page's answer.
type askView struct {
	Question string
	Answered bool
	HTML     template.HTML
	Sources  []askSource // URLs as paths
	Limited  string      // over the rate limit: the wait, e.g. "12 seconds"
}

// askPage is GET /ask?q=: a question answered from the documentation, as the docs pages'
// "Ask the docs" box shows it. A browser without the script gets the answer in a docs page;
// the script asks with Accept: application/json and gets askQuestion's result. Each question
// spends one request of the client's public API allowance.
func (s *Server) askPage(w http.ResponseWriter, r *http.Request) {
	jsonReply := strings.Contains(r.Header.Get("Accept"), "application/json")
	w.Header().Add("Vary", "Accept")
	w.Header().Set("Cache-Control", "no-store")
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	view := pageView{Document: &content.Document{Path: "/ask", Title: "Ask the docs",
		Summary: "Questions answered from the documentation, with the sections they come from."},
		Docs: &docsView{Groups: s.Site.DocGroups()}}
	switch {
	case q == "" && jsonReply:
		s.writeErrorObject(w, http.StatusBadRequest, codeMissingParam, "the question q is required", "Ask with /ask?q=How+long+is+audio+kept%3F", nil)
		return
	case q == "":
		s.writeSitePage(w, r, http.StatusOK, "no-store", view)
		return
	case utf8.RuneCountInString(q) > search.MaxQuestionLen || !utf8.ValidString(q):
		s.writeErrorObject(w, http.StatusBadRequest, codeInvalidParam,
			fmt.Sprintf("invalid parameter q: at most %d characters of UTF-8", search.MaxQuestionLen), "Ask one shorter question.", nil)
		return
	case s.Asker == nil || s.Asker.Index == nil:
		s.Error(w, r, &answerdesk.Error{Code: answerdesk.EUNAVAILABLE, Message: "the documentation answerer is not available on this server",
			Hint: "Search the docs instead: /search?q=..."})
		return
	}
	d, err := s.v1.take(w, r, 1)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if !d.Allowed {
		if jsonReply {
			s.v1.tooMany(w, d)
			return
		}
		retry := resetSeconds(d)
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		view.Docs.Answer = &askView{Question: q, Limited: strconv.Itoa(retry) + " seconds"}
		s.writeSitePage(w, r, http.StatusTooManyRequests, "no-store", view)
		return
	}
	reply, err := s.Asker.Ask(r.Context(), q)
	if err != nil {
		s.Error(w, r, fmt.Errorf("ask %q: %w", answerdesk.Clip(q), err))
		return
	}
	if jsonReply {
		out := askReply{Question: reply.Question, Answered: reply.Answered, Answer: reply.Text, Method: reply.Method, Sources: []askSource{}}
		for _, p := range reply.Sources {
			out.Sources = append(out.Sources, askSource{Title: p.PageTitle, Section: search.HeadingOr(p.Heading), URL: s.BaseURL + p.URL})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	a := &askView{Question: q, Answered: reply.Answered, HTML: inlineMarkdown(reply.Text)}
	for _, p := range reply.Sources {
		a.Sources = append(a.Sources, askSource{Title: p.PageTitle, Section: search.HeadingOr(p.Heading), URL: p.URL})
	}
	view.Docs.Answer = a
	view.Title = "Ask the docs: " + answerdesk.Clip(q)
	s.writeSitePage(w, r, http.StatusOK, "no-store", view)
}

// inlineMarkdown shows an answer's Markdown as HTML: everything escaped, `code` as code and
// **bold** markers dropped, as the page's script shows it.
func inlineMarkdown(md string) template.HTML {
	var b strings.Builder
	for i, part := range strings.Split(md, "`") {
		esc := html.EscapeString(part)
		if i%2 == 1 {
			b.WriteString("<code>" + esc + "</code>")
		} else {
			b.WriteString(strings.ReplaceAll(esc, "**", ""))
		}
	}
	return template.HTML(b.String()) //nolint:gosec // every part is escaped above
}
