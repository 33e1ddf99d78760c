package search

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/content"
)

func shippedIndex(t testing.TB) *Index {
	t.Helper()
	site, err := content.Load(content.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	ix := buildIndex(t, site.Pages)
	return ix
}

// TestAnswerIssueQuestions are the questions the old answerer got wrong with a confident
// sentence from a neighbouring passage (issue 13): each must now be answered from the
// section that holds the fact, with the fact in the answer.
func TestAnswerIssueQuestions(t *testing.T) {
	ix := shippedIndex(t)
	cases := []struct {
		question string
		section  string // the section the answer must cite (a prefix: "page#" for any section of a page)
		fact     string // a regular expression the answer must match
	}{
		{"What is the rate limit of the public API?", "/docs/rate-limits#the-public-api-limit-60-requests-per-minute-per-client-ip", `\b60\b`},
		{"Which fields are required to create an SMS To Do?", "/docs/to-dos#required-fields-per-delivery_type", "`from`, `contact`, `message_text`"},
		{"Which header is the same on every retry of a dispatched message?", "/docs/external-api-dispatching#", "Idempotency-Key"},
		{"what happens when my webhook endpoint is down?", "/docs/external-api-dispatching#retries-backoff-and-retry-after", `retr`},
		{"my webhook endpoint returns 500, will you retry?", "/docs/external-api-dispatching#retries-backoff-and-retry-after", `5xx answers are retried`},
		{"how do I paginate messages?", "", "`page_size`"},
	}
	for _, tc := range cases {
		t.Run(tc.question, func(t *testing.T) {
			a, err := ix.Answer(context.Background(), tc.question)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Answered {
				t.Fatalf("not answered; nearest %+v", a.Nearest)
			}
			if !regexp.MustCompile(tc.fact).MatchString(a.Text()) {
				t.Errorf("answer %q lacks %q", a.Text(), tc.fact)
			}
			if tc.section != "" && !slices.ContainsFunc(a.Sources, func(p Passage) bool { return strings.HasPrefix(p.URL, tc.section) }) {
				t.Errorf("sources %v, want %s", urlsOf(a.Sources), tc.section)
			}
			if tc.section == "" && !regexp.MustCompile("`page`").MatchString(a.Text()) {
				t.Errorf("answer %q names page_size but not page", a.Text())
			}
		})
	}
	// searchDocumentation's passages: the retries section is among the first three for the
	// new user's words.
	for _, q := range []string{"what happens when my webhook endpoint is down?", "my webhook endpoint returns 500, will you retry?"} {
		ps, err := ix.Passages(context.Background(), q, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(ps, func(p Passage) bool { return p.URL == "/docs/external-api-dispatching#retries-backoff-and-retry-after" }) {
			t.Errorf("%q: top 3 %v lack the retries section", q, urlsOf(ps))
		}
	}
}

// TestAnswerHoldsKindAsked: when a guide page (deployment.md) restates a topic of the
// reference (operations.md) in prose, the answer must still be the unit that holds the kind
// of fact asked (the values, the body, the amount of the list named), not a sentence on
// the topic without it. These are the questions the merge of the deployment guide broke.
func TestAnswerHoldsKindAsked(t *testing.T) {
	ix := shippedIndex(t)
	cases := []struct {
		name, question string
		section        string // a source must start with it
		fact           string // the answer must match it
		wrong          string // the answer must not match it ("" for none)
	}{
		{"values question gets the alternatives from the flags table", "Which log formats can the server write?",
			"/docs/operations#", "`text` or `json`", "write-only"},
		{"return question gets the body from the health table", "What does /healthz return?",
			"/docs/operations#health", `\{"status":"ok"\}`, ""},
		{"default of a list is that list's own, with its number", "What is the default page size of the To Do list?",
			"/docs/to-dos#list-to-dos", `default 10\b`, `default 20\b`},
		{"instances are processes", "How do I run two instances against one database?",
			"/docs/operations#running-more-than-one-process", "leases", ""},
		{"a plural status matches the status field", "Which statuses can a dispatch delivery be in?",
			"/docs/external-api-dispatching#", "`delivered` or `failed`", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ix.Answer(context.Background(), tc.question)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Answered {
				t.Fatalf("not answered; nearest %v", urlsOf(a.Nearest))
			}
			if !regexp.MustCompile(tc.fact).MatchString(a.Text()) {
				t.Errorf("answer %q lacks %q", a.Text(), tc.fact)
			}
			if tc.wrong != "" && regexp.MustCompile(tc.wrong).MatchString(a.Text()) {
				t.Errorf("answer %q states %q, which is not the fact asked", a.Text(), tc.wrong)
			}
			if !slices.ContainsFunc(a.Sources, func(p Passage) bool { return strings.HasPrefix(p.URL, tc.section) }) {
				t.Errorf("sources %v, want %s", urlsOf(a.Sources), tc.section)
			}
		})
	}
}

// TestAnswerComposition: the answer quotes the unit that holds the fact when another
// section's unit ranks first: the runner-up section's best unit that holds the kind of fact
// asked joins it (an amount written as a table label, "Default page_size: 10"), and a
// question mostly in words the docs never use is declined however well its one known word
// matches.
func TestAnswerComposition(t *testing.T) {
	ix := shippedIndex(t)
	cases := []struct {
		name, question string
		fact           string // the answer must match it; "" for a question to decline
	}{
		{"the list's own amount joins the deliveries list's", "How many To Dos can I fetch in a single page?", "Default `page_size`: 10; Maximum `page_size`: 100"},
		{"a field's rule in the fields table joins the prose", "Can I configure basic auth on a webhook with only a username?", "both or neither"},
		{"mostly unknown words", "How do I reset my iPhone?", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ix.Answer(context.Background(), tc.question)
			if err != nil {
				t.Fatal(err)
			}
			if tc.fact == "" {
				if a.Answered || len(a.Nearest) == 0 {
					t.Errorf("answered=%v nearest=%d: %s", a.Answered, len(a.Nearest), a.Text())
				}
				return
			}
			if !a.Answered || !strings.Contains(a.Text(), tc.fact) {
				t.Errorf("answered=%v, answer %q lacks %q", a.Answered, a.Text(), tc.fact)
			}
		})
	}
}

// TestAnswerNotCovered: a question the docs do not answer is declined with the three
// nearest sections, also when no word of it matches.
func TestAnswerNotCovered(t *testing.T) {
	ix := shippedIndex(t)
	for _, q := range []string{"What is the capital of France?", "Does answerdesk integrate with Salesforce?", "zzzz qqqq"} {
		a, err := ix.Answer(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Answered || len(a.Quotes) != 0 || len(a.Nearest) != NearestSections {
			t.Errorf("%q: answered=%v quotes=%d nearest=%v", q, a.Answered, len(a.Quotes), urlsOf(a.Nearest))
		}
	}
	if _, err := ix.Answer(context.Background(), "   "); err == nil {
		t.Error("an empty question was answered")
	}
}

func urlsOf(ps []Passage) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.URL)
	}
	return out
}

// TestAnswerDocsConcepts: a question naming several of the docs' heading terms is about
// the docs and is answered although its other words ("still", "two months ago") match
// nothing, while off-topic questions near the docs' words stay declined.
func TestAnswerDocsConcepts(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		q, fact, section string // section "" for a question to decline
	}{
		{"Can I still get the audio of a call from two months ago?", "31 days", "/docs/call-recordings#retention-31-days-of-audio-3-years-of-records"},
		{"How do I cancel my subscription?", "", ""},
		{"How do I port my existing phone number to you?", "", ""},
	} {
		a, err := ix.Answer(context.Background(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.section == "" && a.Answered:
			t.Errorf("%q was answered: %s", tc.q, a.Text())
		case tc.section != "" && (!a.Answered || !strings.Contains(a.Text(), tc.fact) || !slices.Contains(urlsOf(a.Sources), tc.section)):
			t.Errorf("%q: answered=%v sources=%v, want %q from %s: %s", tc.q, a.Answered, urlsOf(a.Sources), tc.fact, tc.section, a.Text())
		}
	}
}

// TestPartsPassages: the words of a snake_case or CamelCase name find the passages naming
// it, which the analyzer keeps whole ("signing secret" for `signing_secret`).
func TestPartsPassages(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		q     string
		names []string // a found passage names one of them
	}{
		{"signing secret", []string{"signing_secret"}},
		{"rate limit", []string{"RateLimit", "rate_limit"}},
		{"page size", []string{"page_size"}},
	} {
		ps, err := ix.partsPassages(context.Background(), ix.questionStems(tc.q))
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			t.Errorf("%q found no passage", tc.q)
		}
		for _, p := range ps {
			if !slices.ContainsFunc(tc.names, func(n string) bool { return strings.Contains(p.Text, n) }) {
				t.Errorf("%q found %s, which names none of %v", tc.q, p.URL, tc.names)
			}
		}
	}
}

// TestBodyPassages checks that a section saying it all in its text under a heading of other
// words is found by its text: retrieval ranks "Sending the token" 45th for this question.
func TestBodyPassages(t *testing.T) {
	ix := shippedIndex(t)
	const q = "Which headers does every request to the customer API need?"
	ps, err := ix.bodyPassages(context.Background(), ix.questionStems(q))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ps, func(p Passage) bool { return p.URL == "/docs/authentication#sending-the-token" }) {
		t.Errorf("%q: body passages %v lack /docs/authentication#sending-the-token", q, ps)
	}
	a, err := ix.Answer(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Answered || !strings.Contains(a.Text(), "Authorization: Bearer") {
		t.Errorf("%q: answered=%v: %s", q, a.Answered, a.Text())
	}
}
