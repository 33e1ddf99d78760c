package search

import (
	"context"
	"testing"
)

// answeredCase is a question and whether it must be answered (or declined).
type answeredCase struct {
	q        string
	answered bool
}

// wantAnswered asks each question and checks that it is answered, or declined, as the
// case says.
func wantAnswered(t *testing.T, ix *Index, cases []answeredCase) {
	t.Helper()
	for _, tc := range cases {
		a, err := ix.Answer(context.Background(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Answered != tc.answered {
			t.Errorf("%q: answered=%v, want %v: %s", tc.q, a.Answered, tc.answered, a.Text())
		}
	}
}

// TestOneDocsWord: a question holding one word of the docs is answered only from a section
// whose heading holds it.
func TestOneDocsWord(t *testing.T) {
	wantAnswered(t, shippedIndex(t), []answeredCase{
		{"What is pagination?", true},
		{"Who founded answerdesk?", false},
		{"What is the meaning of life?", false},
	})
}

// TestOtherProducts: a question about another product's own settings is declined, though
// its words are the docs' (a rate limit, tokens); the same product named where answerdesk
// uses it, or where answerdesk runs, is answered.
func TestOtherProducts(t *testing.T) {
	ix := shippedIndex(t)
	wantAnswered(t, ix, []answeredCase{
		{"How do I raise the messages-per-second limit on my Twilio messaging service?", false},
		{"What's the rate limit for the OpenAI API on gpt-4o?", false},
		{"My Auth0 access tokens expire after an hour. How do I make them last longer?", false},
		{"How do I hook SMS To Dos up to my Twilio account?", true},
		{"Which endpoint should the Kubernetes liveness probe hit?", true},
		{"How do I run the server on a Postgres database?", true},
		{"How do I run answerdesk in Docker?", true},
		{"Which environment variable sets the port in Docker?", true},
		{"How do I reverse a linked list in Python?", false},
		{"Resque: what is the default number of retries of a failed job?", false},
		{"Question: how many times is a failed delivery retried?", true},
		{"Is the Basic auth password returned when I list on-call contacts?", true},
		// A place named in a sentence of context is where the asker is, not the subject (the
		// Auth0 question above is pointed back to, by "them").
		{"Half of our properties are in Arizona. What time zone are the times of a To Do schedule in?", true},
	})
	for _, name := range []string{"twilio", "python", "openai", "docker"} {
		if !ix.ans.proper[name] {
			t.Errorf("%q is not among the docs' proper names", name)
		}
	}
	for _, word := range []string{"creat", "messag", "token"} {
		if ix.ans.proper[word] {
			t.Errorf("%q is taken for a proper name", word)
		}
	}
}

// TestDeclines checks the decline on scored units made up for it: a best unit that holds
// too little of the question answers only through its section, a question with one docs
// word only under a heading holding it, and one mostly in words the docs never use only
// from a unit scoring very well.
func TestDeclines(t *testing.T) {
	plain := testSection("/docs/x#a", "", "a1 x y z", "q r s")
	full := testSection("/docs/x#c", "", "b1 c1 d1 w")
	headed := testSection("/docs/x#b", "b1 c1 d1", "a1 x y z")
	q := testQuestion("a1", "b1", "c1", "d1")
	at := func(u *unit, score float64) scored {
		s := q.score(u, 0)
		s.score = score
		return s
	}
	for _, tc := range []struct {
		name    string
		q       question
		best    scored
		decline bool
	}{
		{"holds a quarter, weak", q, at(plain.units[0], 0.5), true},
		{"holds a quarter, the section's heading the rest", q, at(headed.units[0], 0.5), false},
		{"holds a quarter, strong score but too little coverage", q, at(plain.units[0], 2), true},
		{"holds nothing of the question", q, at(testSection("/docs/y", "", "x y z").units[0], 2), true},
		{"one docs word, no heading holding it", func() question { q := testQuestion("a1"); q.known = 1; return q }(), at(plain.units[0], 2), true},
		{"mostly unknown words, good score", func() question { q := q; q.unknownFull = 0.6 * q.fullTotal; return q }(), at(full.units[0], 0.8), true},
	} {
		if got := tc.q.declines(tc.best); got != tc.decline {
			t.Errorf("%s: declines = %v, want %v", tc.name, got, tc.decline)
		}
	}
	// A unit holding most of the question, scoring well, answers.
	q3 := testQuestion("b1", "c1", "d1")
	best := q3.score(full.units[0], 0)
	best.score = 1
	if q3.declines(best) {
		t.Errorf("a unit holding the whole question declined: %+v", best)
	}
}
