package mcp

import (
	"context"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/search"
)

// qa is a question about the shipped documentation: the answer must contain fact (case
// folded) and cite one of pages.
type qa struct {
	question string
	fact     string
	pages    []string
}

var qaPairs = []qa{
	{"What HTTP status does an out-of-range page_size return?", "422", []string{"/docs/pagination"}},
	{"What is the maximum page_size for messages?", "200", []string{"/docs/pagination", "/docs/messages"}},
	{"What is the default page_size for To Dos?", "10", []string{"/docs/pagination", "/docs/to-dos"}},
	{"How long is recording audio kept?", "31 days", []string{"/docs/call-recordings"}},
	{"How long are call recording rows and their call detail records kept?", "3 years", []string{"/docs/call-recordings"}},
	{"How long is a signed audio link valid?", "15 minutes", []string{"/docs/call-recordings"}},
	{"What does a webhook signing secret start with?", "whsec_", []string{"/docs/external-api-dispatching"}},
	{"What prefix do customer API tokens have?", "ak_", []string{"/docs/authentication"}},
	{"How many requests per minute does the public API allow?", "60", []string{"/docs/rate-limits", "/docs/public-api"}},
	{"Which header says how long to wait after a 429?", "Retry-After", []string{"/docs/rate-limits", "/docs/errors"}},
	{"What error code is returned when the request body is malformed JSON?", "processing_error", []string{"/docs/errors"}},
	{"Which header should my endpoint use to deduplicate deliveries?", "Idempotency-Key", []string{"/docs/external-api-dispatching"}},
	{"How many attempts does a failing webhook delivery get?", "9 attempts", []string{"/docs/external-api-dispatching"}},
	{"What happens when my endpoint answers 410 Gone?", "disabled", []string{"/docs/external-api-dispatching"}},
	{"What date format do the start_date and end_date filters use?", "MM-DD-YYYY", []string{"/docs/messages"}},
	{"What is the maximum length of a message's content?", "20,000", []string{"/docs/messages"}},
	{"What does acknowledging a message do to escalation?", "escalation", []string{"/docs/messages", "/docs/external-api-dispatching"}},
	{"Which merge variable holds the account name?", "{{account.name}}", []string{"/docs/merge-variables", "/docs/external-api-dispatching"}},
	{"What does a merge variable for a missing script answer become?", "empty string", []string{"/docs/merge-variables"}},
	{"How do I enable ai_outbound_call To Dos on the server?", "--feature ai-outbound-call", []string{"/docs/to-dos"}},
	{"Does a monthly To Do on day 31 run in February?", "February", []string{"/docs/to-dos"}},
	{"How many attempts does a To Do occurrence get for transient failures?", "6 attempts", []string{"/docs/to-dos"}},
	{"How do I start the demo server?", "make run", []string{"/docs/getting-started"}},
	{"Which Go version is needed to build answerdesk?", "1.25.5", []string{"/docs/getting-started"}},
	{"What is the default listen address of answerdesk serve?", ":8080", []string{"/docs/operations"}},
	{"Which environment variable sets the database file?", "ANSWERDESK_DB", []string{"/docs/operations"}},
	{"How long is an asynchronous batch job kept?", "24 hours", []string{"/docs/public-api", "/docs/errors"}},
	{"How many operations can a public API batch hold?", "10", []string{"/docs/public-api", "/docs/rate-limits"}},
	{"What is the largest request body the customer API accepts?", "1 MiB", []string{"/docs/errors", "/docs/rate-limits", "/docs/messages"}},
	{"What does the API answer for a message of an account I cannot see?", "404", []string{"/docs/authentication", "/docs/errors", "/docs/messages"}},
	{"How often is a token's last_used_at written?", "once per minute", []string{"/docs/authentication"}},
	{"How long does v1 keep working after a breaking change?", "12 months", []string{"/docs/versioning"}},
	{"What is the default SMTP port with starttls?", "587", []string{"/docs/operations"}},
	{"How do I create an API token?", "token create", []string{"/docs/authentication"}},
	{"What is the range of the limit parameter of recent messages?", "1 to 100", []string{"/docs/messages", "/docs/pagination"}},
	{"What is the webhook-signature header computed with?", "HMAC-SHA256", []string{"/docs/external-api-dispatching"}},
	{"Which flag allows dispatching to private addresses?", "--dispatch-allow-private", []string{"/docs/external-api-dispatching", "/docs/operations"}},
	{"What are the possible statuses of a message?", "acknowledged", []string{"/docs/messages"}},
	{"How long do customer API tokens last before they expire?", "revoked", []string{"/docs/authentication"}},
	{"Which error code means the feature is not enabled on this server?", "feature_unavailable", []string{"/docs/errors", "/docs/to-dos"}},
	// Written after the answerer was tuned on the ones above.
	{"What does the Link header of a list contain?", `rel="next"`, []string{"/docs/pagination"}},
	{"By default, how long does a message wait at an escalation level before it escalates?", "15", []string{"/docs/external-api-dispatching"}},
	{"Which error code is answered for an unknown path?", "rest_no_route", []string{"/docs/errors", "/docs/public-api"}},
	{"Which flag changes how long recording audio is kept?", "--audio-retention", []string{"/docs/call-recordings", "/docs/operations"}},
	{"Where is the OpenAPI document of the customer API served?", "/api/v2/openapi.json", []string{"/docs/getting-started", "/docs/operations", "/docs/versioning", "/docs/errors", "/docs/mcp-servers", "/docs/authentication"}},
	{"Can I change an on-call contact after creating it?", "cannot be changed", []string{"/docs/external-api-dispatching"}},
	{"What happens to To Do occurrences missed while the service was not running?", "skipped", []string{"/docs/to-dos"}},
	{"How are the secrets of delivery methods protected at rest?", "AES-256-GCM", []string{"/docs/external-api-dispatching", "/docs/operations"}},
	{"What does the sandbox add to every JSON body?", `"sandbox": true`, []string{"/docs/public-api"}},
	{"Which payload types can a delivery method send?", "FORM", []string{"/docs/external-api-dispatching"}},
}

// Questions the documentation does not answer: askQuestion must say so.
var offTopic = []string{
	"What is the capital of France?",
	"How do I bake sourdough bread?",
	"Who won the football world cup in 1998?",
	"Does answerdesk have a GraphQL endpoint?",
	"How do I integrate answerdesk with Salesforce?",
	"What is the weather in Paris tomorrow?",
}

// TestAskQuestionQuality asks the shipped documentation questions through the tool's
// extractive answerer and reports the share answered correctly: the answer holds the
// expected fact and cites the expected page. Off-topic questions must be declined.
func TestAskQuestionQuality(t *testing.T) {
	cfg := testConfig(t, "http://localhost:8080")
	d := &docs{cfg: cfg, base: cfg.base(), kb: newDocsKB(cfg.Site, cfg.base())}
	ctx := context.Background()
	verbose := os.Getenv("QA_VERBOSE") != ""
	good := 0
	for _, p := range qaPairs {
		ps, err := cfg.Index.Passages(ctx, p.question, askPassages)
		if err != nil {
			t.Fatal(err)
		}
		a := d.extractive(p.question, ps)
		hasFact := strings.Contains(strings.ToLower(a.Answer), strings.ToLower(p.fact))
		cites := slices.ContainsFunc(a.Sources, func(s section) bool {
			u, err := url.Parse(s.URL)
			return err == nil && slices.Contains(p.pages, u.Path)
		})
		ok := a.Answered && hasFact && cites
		if ok {
			good++
		}
		if !ok || verbose {
			var srcs []string
			for _, s := range a.Sources {
				srcs = append(srcs, strings.TrimPrefix(s.URL, d.base))
			}
			mark := "ok  "
			if !ok {
				mark = "MISS"
			}
			t.Logf("%s %q (want %q from %v)\n      answered=%v fact=%v cites=%v sources=%v\n      %s", mark, p.question, p.fact, p.pages,
				a.Answered, hasFact, cites, srcs, a.Answer)
		}
	}
	share := float64(good) / float64(len(qaPairs))
	t.Logf("askQuestion (extractive): %d of %d questions answered correctly (%.0f%%)", good, len(qaPairs), 100*share)
	if share < 0.8 {
		t.Errorf("askQuestion answered %.0f%% correctly; want at least 80%%", 100*share)
	}
	for _, q := range offTopic {
		ps, err := cfg.Index.Passages(ctx, q, askPassages)
		if err != nil {
			t.Fatal(err)
		}
		if a := d.extractive(q, ps); a.Answered {
			t.Errorf("off-topic %q was answered: %s", q, a.Answer)
		}
	}
}

// TestSectionAnchorsMatchTheIndex checks that the answerer's sections carry the URLs the
// search index gives their passages, so that citations and search results agree.
func TestSectionAnchorsMatchTheIndex(t *testing.T) {
	cfg := testConfig(t, "http://localhost:8080")
	kb := newDocsKB(cfg.Site, cfg.base())
	n := 0
	for _, pg := range kb.docPages {
		for _, sec := range kb.byPage[pg.Path] {
			if sec.heading == "" {
				continue
			}
			n++
			ps, err := cfg.Index.Passages(context.Background(), sec.heading, 50)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(ps, func(p search.Passage) bool { return p.URL == sec.url }) {
				t.Errorf("section %s (%q) is not a passage of the index", sec.url, sec.heading)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d sections", n)
	}
}
