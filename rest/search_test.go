package rest_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/search"
)

type searchBody struct {
	Query   string
	Results []struct {
		Title, Summary, URL, MarkdownURL, Type, UpdatedAt, Highlight string
	}
	NextCursor *string
}

func TestPublicSearch(t *testing.T) {
	site, index := indexedSite(t, content.Embedded())
	ts := serve(t, &rest.Server{Site: site, Search: index, Logger: quietLogger()})
	find := func(t *testing.T, query string) searchBody {
		t.Helper()
		var b searchBody
		if resp := getJSON(t, ts.URL+"/api/v1/search?"+query, &b); resp.StatusCode != 200 {
			t.Fatalf("%s: %d", query, resp.StatusCode)
		}
		return b
	}
	// pagesNeitherRepeatNorSkip follows nextCursor from the first page of query at limit:
	// at least two pages, no result twice, and together what one page of 50 holds.
	pagesNeitherRepeatNorSkip := func(t *testing.T, query string, limit int) {
		t.Helper()
		seen := map[string]bool{}
		q := fmt.Sprintf("%s&limit=%d", query, limit)
		pages := 0
		for {
			b := find(t, q)
			for _, r := range b.Results {
				if seen[r.URL] {
					t.Fatalf("%s repeated on page %d", r.URL, pages)
				}
				seen[r.URL] = true
			}
			pages++
			if b.NextCursor == nil {
				break
			}
			q = fmt.Sprintf("%s&limit=%d&cursor=%s", query, limit, url.QueryEscape(*b.NextCursor))
		}
		all := find(t, query+"&limit=50")
		if pages < 2 || (all.NextCursor == nil && len(seen) != len(all.Results)) {
			t.Fatalf("%d pages, %d results; one page of 50 has %d", pages, len(seen), len(all.Results))
		}
	}
	t.Run("finds_with_a_typo_and_highlights", func(t *testing.T) {
		b := find(t, "q=recepionist")
		if len(b.Results) == 0 || !strings.Contains(strings.ToLower(b.Results[0].Title), "receptionist") || !strings.Contains(b.Results[0].Highlight, "<mark>") {
			t.Fatalf("%+v", b)
		}
		r := b.Results[0]
		if !strings.HasPrefix(r.URL, ts.URL+"/") || r.MarkdownURL != r.URL+".md" || r.UpdatedAt == "" || b.Query != "recepionist" {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("type_filter", func(t *testing.T) {
		for _, r := range find(t, "q=dental&type=blog&limit=50").Results {
			if r.Type != "blog" {
				t.Fatalf("type %s in a blog search", r.Type)
			}
		}
	})
	t.Run("cursor_pages_neither_repeat_nor_skip", func(t *testing.T) {
		pagesNeitherRepeatNorSkip(t, "q=calls", 5)
	})
	// type=docs returns the documentation sections that back searchDocumentation and
	// askQuestion, in the public API's shape and paging.
	t.Run("docs_are_sections_of_pages", func(t *testing.T) {
		cases := []struct {
			name, q, first string
		}{
			{"webhook endpoint down lands on retries", "webhook endpoint down retry", "/docs/external-api-dispatching#retries-backoff-and-retry-after"},
			{"paginate lands on page and page_size", "paginate messages page_size", "/docs/pagination#"},
			{"a prefix as you type", "idempotency-ke", "/docs/"},
			{"only a prefix", "retr", "/docs/external-api-dispatching#"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				b := find(t, "type=docs&limit=5&q="+url.QueryEscape(tc.q))
				if len(b.Results) == 0 || !strings.HasPrefix(b.Results[0].URL, ts.URL+tc.first) {
					t.Fatalf("first result: %+v, want %s", b.Results, tc.first)
				}
				for _, r := range b.Results {
					page, anchor, _ := strings.Cut(r.URL, "#")
					if r.Type != "docs" || r.MarkdownURL != page+".md" || r.UpdatedAt == "" || r.Summary == "" || !strings.Contains(r.Highlight, "<mark>") {
						t.Errorf("result %+v", r)
					}
					if anchor != "" && !strings.Contains(r.Title, ": ") {
						t.Errorf("title %q of a section names no heading", r.Title)
					}
				}
			})
		}
		pagesNeitherRepeatNorSkip(t, "type=docs&q=retry", 3)
		var e errorBody
		if resp := getJSON(t, ts.URL+"/api/v1/search?type=docs&q=retry&limit=4&cursor="+url.QueryEscape(*find(t, "type=docs&q=retry&limit=3").NextCursor), &e); resp.StatusCode != 400 || e.Code != "rest_invalid_param" {
			t.Errorf("a cursor with another limit: %d %+v", resp.StatusCode, e)
		}
	})
	t.Run("bad_input", func(t *testing.T) {
		first := find(t, "q=calls&limit=2")
		cases := map[string]string{
			"":                    "rest_missing_callback_param",
			"q=":                  "rest_missing_callback_param",
			"q=%20%20":            "rest_missing_callback_param",
			"q=calls&limit=0":     "rest_invalid_param",
			"q=calls&limit=51":    "rest_invalid_param",
			"q=calls&limit=ten":   "rest_invalid_param",
			"q=calls&type=poem":   "rest_invalid_param",
			"q=calls&sort=date":   "rest_invalid_param",
			"q=calls&cursor=nope": "rest_invalid_param",
			"q=plumbing&limit=2&cursor=" + url.QueryEscape(*first.NextCursor):  "rest_invalid_param", // another query's cursor
			"q=calls&limit=2&cursor=" + url.QueryEscape(*first.NextCursor+"x"): "rest_invalid_param", // tampered
			"q=" + strings.Repeat("a", 201):                                    "rest_invalid_param",
		}
		for query, code := range cases {
			var e errorBody
			if resp := getJSON(t, ts.URL+"/api/v1/search?"+query, &e); resp.StatusCode != 400 || e.Code != code {
				t.Errorf("%q: %d %+v, want 400 %s", query, resp.StatusCode, e, code)
			}
		}
		// A cursor the index refuses is worded by the index's error, as the MCP tools
		// word it, with the parameter's public name.
		var e errorBody
		getJSON(t, ts.URL+"/api/v1/search?q=calls&cursor=nope", &e)
		if want := "invalid parameter cursor: " + search.ErrBadCursor.Fields[0].Message; e.Message != want || e.Hint != search.ErrBadCursor.Hint {
			t.Errorf("bad cursor: %q (hint %q), want %q (hint %q)", e.Message, e.Hint, want, search.ErrBadCursor.Hint)
		}
	})
}
