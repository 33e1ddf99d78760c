package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
	"github.com/answerdesk/answerdesk/search/llm"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func TestDocsServer(t *testing.T) {
	s := serve(t, "docs", nil)
	c, init := s.connectInit(t, false)
	site := s.cfg.Site
	base := s.cfg.BaseURL
	var docsPages []*content.Page
	for _, p := range site.Pages {
		if p.Type == content.TypeDocs {
			docsPages = append(docsPages, p)
		}
	}

	t.Run("initialize_and_list_tools", func(t *testing.T) {
		if init.ServerInfo.Name != "answerdesk-docs" || !strings.Contains(init.Instructions, "askQuestion") ||
			init.Capabilities.Resources == nil {
			t.Errorf("server info %+v, instructions %q, capabilities %+v", init.ServerInfo, init.Instructions, init.Capabilities)
		}
		_, names := listTools(t, c)
		if want := []string{"askQuestion", "getPage", "searchDocumentation"}; !slices.Equal(names, want) {
			t.Errorf("tools %v, want %v", names, want)
		}
	})

	t.Run("resources_are_the_docs_pages", func(t *testing.T) {
		res, err := c.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Resources) != len(docsPages)+1 {
			t.Fatalf("%d resources, want %d docs pages and the index", len(res.Resources), len(docsPages))
		}
		uris := map[string]mcpgo.Resource{}
		for _, r := range res.Resources {
			uris[r.URI] = r
			if r.MIMEType != "text/markdown" || r.Title == "" || !strings.HasSuffix(r.URI, ".md") {
				t.Errorf("resource %+v", r)
			}
		}
		for _, p := range docsPages {
			r, ok := uris[base+p.MarkdownPath()]
			if !ok || r.Title != p.Title || r.Description != p.Summary {
				t.Errorf("%s: resource %+v", p.Path, r)
			}
		}
		if _, ok := uris[base+"/docs.md"]; !ok {
			t.Error("no index resource /docs.md")
		}
	})

	t.Run("read_a_resource", func(t *testing.T) {
		p := docsPages[0]
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = base + p.MarkdownPath()
		res, err := c.ReadResource(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("%d contents", len(res.Contents))
		}
		tc, ok := mcpgo.AsTextResourceContents(res.Contents[0])
		if !ok || tc.URI != req.Params.URI || tc.MIMEType != "text/markdown" || !strings.HasPrefix(tc.Text, "# "+p.Title+"\n") ||
			!strings.Contains(tc.Text, strings.TrimSpace(p.Markdown)[:40]) {
			t.Errorf("contents %+v", res.Contents[0])
		}
	})

	t.Run("read_an_unknown_resource_is_an_error", func(t *testing.T) {
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = base + "/docs/nothing.md"
		if _, err := c.ReadResource(context.Background(), req); err == nil {
			t.Error("want an error")
		}
	})

	t.Run("searchDocumentation", func(t *testing.T) {
		var out docSearch
		res := call(t, c, "searchDocumentation", map[string]any{"query": "rate limit headers", "limit": 3})
		structured(t, res, &out)
		if len(out.Results) == 0 || len(out.Results) > 3 {
			t.Fatalf("%d results", len(out.Results))
		}
		top := out.Results[0]
		if top.Title != "Rate limits" || !strings.HasPrefix(top.URL, base+"/docs/rate-limits#") || top.Section == "" || top.Snippet == "" || top.Score <= 0 {
			t.Errorf("top result %+v", top)
		}
		if !strings.Contains(text(res), top.URL) {
			t.Errorf("the text rendering lacks the URL: %s", text(res))
		}
	})

	t.Run("searchDocumentation_bad_arguments", func(t *testing.T) {
		wantToolError(t, call(t, c, "searchDocumentation", nil), "query: is required")
		wantToolError(t, call(t, c, "searchDocumentation", map[string]any{"query": "x", "limit": 21}), "limit", "from 1 to 20")
		wantToolError(t, call(t, c, "searchDocumentation", map[string]any{"query": []any{"x"}}), "query", "must be a string, not an array")
		wantToolError(t, call(t, c, "searchDocumentation", map[string]any{"q": "x"}), "q", "only query, limit")
	})

	t.Run("getPage_by_path_slug_and_url", func(t *testing.T) {
		pg, _ := site.Page("/docs/pagination")
		for _, args := range []map[string]any{
			{"path": "/docs/pagination"}, {"path": "pagination"}, {"path": "/docs/pagination.md#page-and-page_size"},
			{"url": base + "/docs/pagination#the-link-header"},
		} {
			var out docPage
			res := call(t, c, "getPage", args)
			structured(t, res, &out)
			if out.Title != pg.Title || out.URL != base+pg.Path || !strings.Contains(out.Markdown, pg.Markdown[:60]) || text(res) != out.Markdown {
				t.Errorf("%v: %s", args, out.pageContent.pageContent())
			}
			if len(out.Sections) < 3 || !slices.ContainsFunc(out.Sections, func(s section) bool { return s.URL == base+"/docs/pagination#the-link-header" }) {
				t.Errorf("%v: sections %+v", args, out.Sections)
			}
		}
	})

	t.Run("getPage_index", func(t *testing.T) {
		var out docPage
		structured(t, call(t, c, "getPage", map[string]any{"path": "/docs"}), &out)
		if out.Type != "index" || !strings.Contains(out.Markdown, "/docs/pagination.md") {
			t.Errorf("%+v", out.pageContent.pageContent())
		}
	})

	t.Run("getPage_errors", func(t *testing.T) {
		res := call(t, c, "getPage", map[string]any{"path": "/docs/nothing"})
		wantToolError(t, res, "no documentation page at /docs/nothing", "/docs/pagination", "searchDocumentation")
		wantToolError(t, call(t, c, "getPage", map[string]any{"path": "/services/" + site.Services[0].Slug}), "not a documentation page")
		wantToolError(t, call(t, c, "getPage", nil), "path: is required (or url)")
		wantToolError(t, call(t, c, "getPage", map[string]any{"path": "/docs/errors", "url": base + "/docs/errors"}), "not both")
		wantToolError(t, call(t, c, "getPage", map[string]any{"url": "/docs/errors"}), "not an absolute URL")
		wantToolError(t, call(t, c, "getPage", map[string]any{"url": "https://elsewhere.example/docs/errors"}), "not a page of this site")
	})

	t.Run("askQuestion_answers_with_sources", func(t *testing.T) {
		var out answer
		res := call(t, c, "askQuestion", map[string]any{"question": "How long is call recording audio kept?"})
		structured(t, res, &out)
		if !out.Answered || out.Method != "extractive" || !strings.Contains(out.Answer, "31 days") {
			t.Fatalf("%+v", out)
		}
		if len(out.Sources) == 0 || !strings.HasPrefix(out.Sources[0].URL, base+"/docs/call-recordings#") || out.Sources[0].Title != "Call recordings" || out.Sources[0].Section == "" {
			t.Errorf("sources %+v", out.Sources)
		}
		if !strings.Contains(text(res), "Sources:\n- Call recordings") {
			t.Errorf("text %s", text(res))
		}
	})

	t.Run("askQuestion_says_when_the_docs_do_not_cover_it", func(t *testing.T) {
		var out answer
		structured(t, call(t, c, "askQuestion", map[string]any{"question": "What is the capital of France?"}), &out)
		if out.Answered || !strings.Contains(out.Answer, "does not cover") || len(out.Sources) != 3 {
			t.Errorf("%+v", out)
		}
	})

	// A new user's questions land on the section that answers them.
	t.Run("askQuestion_new_user_questions", func(t *testing.T) {
		for _, tc := range []struct{ question, section, fact string }{
			{"what happens when my webhook endpoint is down?", "/docs/external-api-dispatching#retries-backoff-and-retry-after", "retr"},
			{"my webhook endpoint returns 500, will you retry?", "/docs/external-api-dispatching#retries-backoff-and-retry-after", "5xx"},
			{"how do I paginate messages?", "", "page_size"},
		} {
			var out answer
			structured(t, call(t, c, "askQuestion", map[string]any{"question": tc.question}), &out)
			if !out.Answered || !strings.Contains(out.Answer, tc.fact) {
				t.Errorf("%q: %+v", tc.question, out)
			}
			if tc.section != "" && !slices.ContainsFunc(out.Sources, func(s section) bool { return s.URL == base+tc.section }) {
				t.Errorf("%q: sources %+v, want %s", tc.question, out.Sources, tc.section)
			}
		}
		var found docSearch
		structured(t, call(t, c, "searchDocumentation", map[string]any{"query": "what happens when my webhook endpoint is down?", "limit": 3}), &found)
		if !slices.ContainsFunc(found.Results, func(p passage) bool { return strings.HasSuffix(p.URL, "#retries-backoff-and-retry-after") }) {
			t.Errorf("searchDocumentation top 3: %+v", found.Results)
		}
	})

	t.Run("askQuestion_bad_arguments", func(t *testing.T) {
		wantToolError(t, call(t, c, "askQuestion", map[string]any{"question": ""}), "question: is required")
		wantToolError(t, call(t, c, "askQuestion", map[string]any{"question": strings.Repeat("why ", 300)}), "question", "limit of 1000")
		wantToolError(t, call(t, c, "askQuestion", map[string]any{"question": "x", "lang": "en"}), "lang", "only question")
		// The schema's maxLength counts characters, and so does the check: 1,000 CJK
		// characters (3,000 bytes) are a question, 1,001 are not.
		if res := call(t, c, "askQuestion", map[string]any{"question": strings.Repeat("電", 1000)}); res.IsError {
			t.Errorf("1000 characters refused: %+v", res.Content)
		}
		wantToolError(t, call(t, c, "askQuestion", map[string]any{"question": strings.Repeat("電", 1001)}), "question", "1001 characters", "limit of 1000")
	})
}

// TestDocsServerLegacyProtocol exercises the session-based protocol on the docs server.
func TestDocsServerLegacyProtocol(t *testing.T) {
	s := serve(t, "docs", nil)
	c := s.connect(t, true)
	var out answer
	structured(t, call(t, c, "askQuestion", map[string]any{"question": "What is the maximum page_size for messages?"}), &out)
	if !out.Answered || !strings.Contains(out.Answer, "200") {
		t.Errorf("%+v", out)
	}
	res, err := c.ListResources(context.Background(), mcpgo.ListResourcesRequest{})
	if err != nil || len(res.Resources) == 0 {
		t.Errorf("resources: %v %v", res, err)
	}
}

// fakeLLM is an OpenAI-compatible chat completions endpoint that records its requests
// and answers with reply.
type fakeLLM struct {
	mu       sync.Mutex
	requests []llmRequest
	auth     []string
	reply    string
	status   int
}

type llmRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req llmRequest
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	reply, status := f.reply, f.status
	f.mu.Unlock()
	if status != 0 {
		http.Error(w, `{"error":{"message":"overloaded"}}`, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": reply}}}})
}

func TestAskQuestionLLM(t *testing.T) {
	fake := &fakeLLM{}
	llmSrv := httptest.NewServer(fake)
	t.Cleanup(llmSrv.Close)
	s := serve(t, "docs", func(c *Config) {
		c.Asker = &search.Asker{Index: c.Index, BaseURL: c.BaseURL,
			LLM: &llm.Client{URL: llmSrv.URL + "/v1", Model: "test-model", Key: "sk-test", HTTP: llmSrv.Client()}}
	})
	c := s.connect(t, false)
	base := s.cfg.BaseURL
	question := "How long is call recording audio kept?"

	t.Run("composes_from_the_retrieved_passages", func(t *testing.T) {
		fake.reply = "Recording audio is kept for 31 days [1], and the recording row for 3 years [1]."
		var out answer
		structured(t, call(t, c, "askQuestion", map[string]any{"question": question}), &out)
		if !out.Answered || out.Method != "llm" || out.Answer != "Recording audio is kept for 31 days, and the recording row for 3 years." {
			t.Errorf("%+v", out)
		}
		fake.mu.Lock()
		req, auth := fake.requests[len(fake.requests)-1], fake.auth[len(fake.auth)-1]
		fake.mu.Unlock()
		if req.Model != "test-model" || auth != "Bearer sk-test" || len(req.Messages) != 2 || req.Messages[0].Role != "system" {
			t.Fatalf("request %+v, auth %q", req, auth)
		}
		user := req.Messages[1].Content
		ps, _ := s.cfg.Index.Passages(context.Background(), question, 8)
		if !strings.HasPrefix(user, "Question: "+question) || !strings.Contains(user, "[1] "+ps[0].PageTitle) ||
			strings.Count(user, "\n[") != len(ps) {
			t.Errorf("prompt:\n%s", user)
		}
		if len(out.Sources) != 1 || out.Sources[0].URL != base+ps[0].URL {
			t.Errorf("sources %+v, want the first passage %s", out.Sources, ps[0].URL)
		}
	})

	t.Run("an_answer_without_citations_falls_back_to_extractive", func(t *testing.T) {
		fake.reply = "Recording audio is kept for 31 days."
		var out answer
		structured(t, call(t, c, "askQuestion", map[string]any{"question": question}), &out)
		if !out.Answered || out.Method != "extractive" || !strings.Contains(out.Answer, "31 days") || len(out.Sources) == 0 {
			t.Errorf("%+v", out)
		}
	})

	t.Run("not_covered", func(t *testing.T) {
		fake.reply = "NOT_COVERED"
		var out answer
		structured(t, call(t, c, "askQuestion", map[string]any{"question": "How do I export messages to a spreadsheet?"}), &out)
		if out.Answered || out.Method != "llm" || !strings.Contains(out.Answer, "does not cover") {
			t.Errorf("%+v", out)
		}
	})

	t.Run("falls_back_to_extractive_when_the_endpoint_fails", func(t *testing.T) {
		fake.status = http.StatusServiceUnavailable
		defer func() { fake.status = 0 }()
		var out answer
		structured(t, call(t, c, "askQuestion", map[string]any{"question": question}), &out)
		if !out.Answered || out.Method != "extractive" || !strings.Contains(out.Answer, "31 days") {
			t.Errorf("%+v", out)
		}
	})
}
