package search

import (
	"context"
	"strings"
	"testing"
)

// TestAskedAlone: a question declined whole because its context outweighs what it asks is
// asked again without the context, and answered only if that sentence alone ranks as no
// off-topic question does.
func TestAskedAlone(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		q        string
		answered bool
		want     string // a fact the answer holds
	}{
		{"Are the recording URLs signed somehow? Our security team wants to know the algorithm.", true, "HMAC"},
		// Alone, "Can you port our existing main line over to you?" reaches --port by one word.
		{"We're switching from another answering service. Can you port our existing main line over to you?", false, ""},
		// "Them" stands for the context's tokens: alone, the asking sentence matches little.
		{"My Auth0 tokens expire after an hour. How do I make them last longer?", false, ""},
	} {
		whole, err := ix.answer(context.Background(), tc.q, 0)
		if err != nil {
			t.Fatal(err)
		}
		if whole.Answered {
			t.Fatalf("%q is answered whole; the case needs a question declined whole", tc.q)
		}
		a, err := ix.Answer(context.Background(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Answered != tc.answered || !strings.Contains(a.Text(), tc.want) {
			t.Errorf("%q: answered=%v, want %v with %q: %s", tc.q, a.Answered, tc.answered, tc.want, a.Text())
		}
		if a.Question != tc.q {
			t.Errorf("the answer's question is %q, want the question as asked", a.Question)
		}
	}
}
