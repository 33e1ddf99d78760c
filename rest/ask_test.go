package rest_test

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/ratelimit"
	"github.com/answerdesk/answerdesk/rest"
)

// TestAskPage is GET /ask: the docs pages' "Ask the docs" box without the script (an HTML
// page with the answer and its sources) and with it (askQuestion's JSON), its bad input,
// and the public rate limit it counts against.
func TestAskPage(t *testing.T) {
	app := testapp.NewPublic(t)
	base := app.Server.URL
	const browser = "text/html,application/xhtml+xml,*/*;q=0.8"
	ask := func(q, accept string) (int, string, string) {
		t.Helper()
		resp, body := get(t, base+"/ask?q="+url.QueryEscape(q), "Accept", accept)
		return resp.StatusCode, resp.Header.Get("Retry-After"), body
	}

	t.Run("page_without_script", func(t *testing.T) {
		status, _, body := ask("How long is call recording audio kept?", browser)
		if status != 200 || !strings.Contains(body, "31 days") || !strings.Contains(body, `<ol class="sources">`) ||
			!strings.Contains(body, `href="/docs/call-recordings#`) || !strings.Contains(body, `aria-current="page">Docs</a>`) {
			t.Fatalf("%d\n%s", status, body)
		}
	})
	t.Run("json_for_the_script", func(t *testing.T) {
		status, _, body := ask("Which header carries the webhook signature?", "application/json")
		var got struct {
			Question, Answer, Method string
			Answered                 bool
			Sources                  []struct{ Title, Section, URL string }
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil || status != 200 {
			t.Fatalf("%d %v\n%s", status, err, body)
		}
		if !got.Answered || got.Method != "extractive" || len(got.Sources) == 0 || !strings.HasPrefix(got.Sources[0].URL, base+"/docs/") {
			t.Errorf("%+v", got)
		}
	})
	t.Run("not_covered_names_the_nearest_sections", func(t *testing.T) {
		status, _, body := ask("What is the capital of France?", browser)
		if status != 200 || !strings.Contains(body, "The docs do not cover this.") || !strings.Contains(body, "The nearest sections") {
			t.Fatalf("%d\n%s", status, body)
		}
	})
	t.Run("question_is_escaped", func(t *testing.T) {
		_, _, body := ask("<script>alert(1)</script> webhook", browser)
		if strings.Contains(body, "<script>alert") || !strings.Contains(body, "&lt;script&gt;alert(1)") {
			t.Fatalf("the question is not escaped:\n%s", body)
		}
	})
	for _, tc := range []struct {
		name, q, code string
		status        int
	}{
		{"missing", "", "rest_missing_callback_param", 400},
		{"too_long", strings.Repeat("a", 1001), "rest_invalid_param", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := ask(tc.q, "application/json")
			if status != tc.status || !strings.Contains(body, `"code":"`+tc.code+`"`) {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
	t.Run("empty_question_in_a_browser_is_the_ask_page", func(t *testing.T) {
		status, _, body := ask("", browser)
		if status != 200 || !strings.Contains(body, `id="ask-form"`) || !strings.Contains(body, `maxlength="1000"`) {
			t.Fatalf("%d\n%s", status, body)
		}
	})

	// Over the public limit a person reads how long to wait, and the script gets a 429
	// with Retry-After.
	t.Run("rate_limited", func(t *testing.T) {
		app.Rest.Public = rest.PublicConfig{Limiter: &ratelimit.Memory{Limit: 2, Window: time.Minute}, Limit: 2}
		t.Cleanup(func() { app.Rest.Public = rest.PublicConfig{} })
		for range 2 {
			if status, _, _ := ask("How do I page through messages?", "application/json"); status != 200 {
				t.Fatalf("within the limit: %d", status)
			}
		}
		status, retry, body := ask("How do I page through messages?", "application/json")
		if status != 429 || retry == "" || !strings.Contains(body, `"code":"rate_limited"`) {
			t.Fatalf("json over the limit: %d Retry-After %q %s", status, retry, body)
		}
		status, retry, body = ask("How do I page through messages?", browser)
		if status != 429 || retry == "" || !strings.Contains(body, "Try again in "+retry+" seconds.") || !strings.Contains(body, "<html") {
			t.Fatalf("page over the limit: %d Retry-After %q\n%s", status, retry, body)
		}
	})
}

// TestSearchPageMore: the search page without the script shows ten results at a time with
// a link to the next ten, over the shipped content.
func TestSearchPageMore(t *testing.T) {
	app := testapp.NewPublic(t)
	_, first := get(t, app.Server.URL+"/search?q=answering", "Accept", "text/html")
	next := regexp.MustCompile(`<a href="(/search\?[^"]+)" rel="next">More results</a>`).FindStringSubmatch(first)
	if next == nil {
		t.Fatalf("no More results link:\n%s", first)
	}
	resp, second := get(t, app.Server.URL+html.UnescapeString(next[1]), "Accept", "text/html")
	if resp.StatusCode != 200 || second == first || !strings.Contains(second, `<ul class="pages">`) {
		t.Fatalf("%d: the next results are not another list", resp.StatusCode)
	}
	resp, stale := get(t, app.Server.URL+"/search?q=answering&cursor=bogus", "Accept", "text/html")
	if resp.StatusCode != 200 || !strings.Contains(stale, `<ul class="pages">`) {
		t.Errorf("a bad cursor: %d", resp.StatusCode)
	}
}
