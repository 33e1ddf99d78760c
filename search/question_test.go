package search

import (
	"slices"
	"strings"
	"testing"
)

// TestPhrases checks that a question's phrases become the docs' words only as whole words,
// in any case, the longest phrase first.
func TestPhrases(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Can I send a Text Message?", "Can I send a SMS?"},
		{"Our text messages fail", "Our SMS fail"},
		{"Why is the server not ready?", "Why is the server not ready?"},
		{"How do I find messages not read yet?", "How do I find messages unread yet?"},
		{"Does the back office get a copy?", "Does the back office get a copy?"},
		{"How long should I back off?", "How long should I backoff?"},
		{"What is the api keyring?", "What is the api keyring?"},
		{"Where do I make an API key?", "Where do I make an API token?"},
		{"Which file do I need to back up?", "Which file do I need to backup?"},
		{"Is the back-up page there?", "Is the back-up page there?"},
		{"Can they log in to the web app?", "Can they sign in to the web app?"},
		{"Where is the login page?", "Where is the login page?"},
		{"How long is audio kept on your side?", "How long is audio kept  ?"},
		{"Which side of the call hung up?", "Which side of the call hung up?"},
		{"When does it give up on my endpoint?", "When does it fail on my endpoint?"},
		{"I was trying to create a To Do", "I was want to create a To Do"},
		{"How many times will it try?", "How many times will it try?"},
		{"env var to set the database path?", "environment variable to set the database path?"},
		{"Too many failed logins?", "Too many failed sign-ins?"},
		{"Does it serve https?", "Does it serve HTTPS TLS?"},
	} {
		if got := phrases.Replace(tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAskedTerms: a question's context sentences weigh less than the sentence that asks;
// a question that is all asking (or has no question mark) is left as it is.
func TestAskedTerms(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		in   string
		want []string // terms of the asking sentences; nil: no context to weigh down
	}{
		{"Our chatbot calls the pricing endpoint a lot. How many requests per minute are we allowed?", []string{"request", "minut", "allow"}},
		{"I'm getting 429s from /api/v1/search. How long should I wait?", []string{"wait"}},
		{"What is the rate limit? Does it apply to the sandbox?", nil},
		{"Tell me about the rate limit.", nil},
		{"We're closed next week! Can I pause a To Do?", []string{"paus", "todo"}},
	} {
		got, asks := ix.askedTerms(tc.in)
		if (got == nil) != (asks == tc.in) {
			t.Errorf("%q: asking text %q with terms %v", tc.in, asks, got)
		}
		if tc.want == nil {
			if got != nil {
				t.Errorf("%q: got %v, want nil", tc.in, got)
			}
			continue
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("%q: %q is not an asked term (got %v)", tc.in, w, got)
			}
		}
		for _, context := range []string{"chatbot", "429", "close"} {
			if got[context] {
				t.Errorf("%q: %q is from the context, not the asking sentence", tc.in, context)
			}
		}
	}
}

// TestOmittedQuestion: a question asking what holds when something is left out, with or
// without a word between "leave" and "out", asks for a default.
func TestOmittedQuestion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"If I leave out the time zone, what zone does it get?", true},
		{"What if I leave page_size out?", true},
		{"What happens when I omit the subject?", true},
		{"Can I leave the account?", false},
		{"What does the server do when it runs out of disk?", false},
	} {
		if got := omittedQuestion.MatchString(strings.ToLower(tc.in)); got != tc.want {
			t.Errorf("%q: omitted=%v, want %v", tc.in, got, tc.want)
		}
	}
	// The words that leave something out stand for a default; what is left out stays.
	ix := shippedIndex(t)
	for _, tc := range []struct {
		in         string
		want, gone []string
	}{
		{"What interval is assumed without giving one?", []string{"default", "interv"}, []string{"give", "without"}},
		{"What if I leave page_size out?", []string{"default", "page_s"}, []string{"leav"}},
		{"If I Leave Out the time zone, what zone does it get?", []string{"default", "zone"}, []string{"leav"}},
	} {
		got := ix.questionTerms(tc.in)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: terms %v lack %q", tc.in, got, w)
			}
		}
		for _, w := range tc.gone {
			if slices.Contains(got, w) {
				t.Errorf("%q: terms %v hold %q", tc.in, got, w)
			}
		}
	}
}

// TestContextPaths: a path or flag written in a question's context sentence says where the
// asker is, not what is asked, so it does not name the unit to answer from (namesPathOf) or
// the resource whose amounts are asked for (asks); written in the asking sentence it does.
func TestContextPaths(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		in    string
		paths int
		about string // a term of the path or flag
		asks  bool   // whether the question asks about it (rows naming it)
	}{
		{"I'm getting 429s from /api/v1/search. How long should I wait before retrying?", 0, "search", false},
		{"How many results does /api/v1/search return at most?", 1, "search", true},
		{"We run with --public-rate-limit 120. Is the window per minute?", 0, "rate", false},
		{"What does --public-rate-limit set?", 1, "rate", true},
	} {
		q := ix.prepare(tc.in)
		if len(q.paths) != tc.paths {
			t.Errorf("%q: %d paths or flags named, want %d", tc.in, len(q.paths), tc.paths)
		}
		if got := q.asks([]string{tc.about}); got != tc.asks {
			t.Errorf("%q: asks about %s = %v, want %v", tc.in, tc.about, got, tc.asks)
		}
	}
}

// TestWithPrivateAddress: a private, loopback or link-local IPv4 address in a question
// stands for the docs' "private address"; a public one does not.
func TestWithPrivateAddress(t *testing.T) {
	for _, tc := range []struct {
		in      string
		private bool
	}{
		{"My callback URL is on 10.0.0.5, will you deliver to it?", true},
		{"Can I dispatch to http://192.168.1.20:3000?", true},
		{"What about 127.0.0.1?", true},
		{"Our pentest used 169.254.169.254.", true},
		{"Our endpoint is 8.8.8.8", false},
		{"Version 1.2.3.4 of the client", false},
		{"Is 999.1.1.1 allowed?", false},
	} {
		got := strings.HasSuffix(withPrivateAddress(tc.in), "(private address)")
		if got != tc.private {
			t.Errorf("%q: private=%v, want %v", tc.in, got, tc.private)
		}
	}
}

// TestPrepare checks a question's terms (stemmed, irregular forms at their base, words of
// asking left out, the docs' joined todo, a stop word that carries meaning as "~word") and
// the kinds of fact it asks for.
func TestPrepare(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		q     string
		terms []string
		kinds string // the kind flags set, in the order of question's fields
		paths int
	}{
		{"How long are recordings kept?", []string{"keep", "record"}, "number", 0},
		{"How do I create a To Do?", []string{"creat", "todo"}, "howTo", 0},
		{"Which headers does every request need?", []string{"everi", "header", "need", "request"}, "code list", 0},
		{"What does GET /api/v2/me return?", []string{"api", "get", "return", "v2"}, "returns", 1},
		{"Which error do I get for a bad page_size?", []string{"bad", "error", "get", "page", "page_s", "s"}, "code status", 0},
		{"Where is the login page?", []string{"login", "page"}, "where", 0},
		{"What format are timestamps in?", []string{"format", "timestamp"}, "code format", 0},
		{"My endpoint is down. Will you retry?", []string{"endpoint", "retri", "~down"}, "", 0},
		{"What happens if I leave page_size out?", []string{"default", "page", "page_s", "s"}, "omitted", 0},
		{"Do I get a 403?", []string{"403", "get"}, "status", 0},
		{"Which flag sets --base-url?", []string{"base", "flag", "set", "url"}, "code", 1},
	} {
		q := ix.prepare(tc.q)
		var terms []string
		for _, x := range q.terms {
			terms = append(terms, x.term)
		}
		if !slices.Equal(terms, tc.terms) {
			t.Errorf("%q: terms %v, want %v", tc.q, terms, tc.terms)
		}
		var kinds []string
		for _, k := range []struct {
			name string
			set  bool
		}{{"number", q.number}, {"code", q.code}, {"howTo", q.howTo}, {"list", q.list}, {"returns", q.returns},
			{"omitted", q.omitted}, {"status", q.status}, {"format", q.format}, {"where", q.where}} {
			if k.set {
				kinds = append(kinds, k.name)
			}
		}
		if got := strings.Join(kinds, " "); got != tc.kinds {
			t.Errorf("%q: kinds %q, want %q", tc.q, got, tc.kinds)
		}
		if len(q.paths) != tc.paths {
			t.Errorf("%q: %d paths named, want %d", tc.q, len(q.paths), tc.paths)
		}
		if q.total <= 0 {
			t.Errorf("%q: total weight %v", tc.q, q.total)
		}
	}
	// A status stands for its class; a stop word that carries meaning for its synonyms.
	q := ix.prepare("Do I get a 403?")
	if i := slices.IndexFunc(q.terms, func(x qterm) bool { return x.term == "403" }); i < 0 || !slices.Contains(q.terms[i].alts, "4xx") {
		t.Errorf("403: %+v, want 4xx among its alternatives", q.terms)
	}
	q = ix.prepare("My endpoint is down. Will you retry?")
	if !slices.Equal(q.synQ, []string{"retri", "fail", "network", "error"}) {
		t.Errorf("down: synonyms %v", q.synQ)
	}
	// The context sentence's words weigh less than the asking sentence's.
	if !q.asked["retri"] || q.asked["endpoint"] {
		t.Errorf("asked terms %v, want retri alone", q.asked)
	}
}

// TestAskedFor checks what an asking phrase asks about, as a docs word.
func TestAskedFor(t *testing.T) {
	for in, want := range map[string]string{"how large": " size ", "How BIG": " size ", "how often": " frequency ", "how long": " ", "how many": " "} {
		if got := askedFor(in); got != want {
			t.Errorf("askedFor(%q) = %q, want %q", in, got, want)
		}
	}
}
