package search

import (
	"slices"
	"testing"
)

// texts are the texts of units.
func texts(us []*unit) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.text)
	}
	return out
}

// TestIntroduced checks the units a lead-in introduces: the rows or items after it, or the
// one sentence after it.
func TestIntroduced(t *testing.T) {
	sec := testSection("/docs/x", "", "the policy is:", "kind:row first row", "kind:row second row", "a sentence after", "the next:", "one sentence", "another")
	if got := texts(introduced(sec.units[0])); !slices.Equal(got, []string{"first row", "second row"}) {
		t.Errorf("rows introduced: %q", got)
	}
	if got := texts(introduced(sec.units[4])); !slices.Equal(got, []string{"one sentence"}) {
		t.Errorf("sentence introduced: %q", got)
	}
	if nextUnit(sec.units[6]) != nil || nextUnit(sec.units[0]) != sec.units[1] {
		t.Error("nextUnit: want the next unit, nil after the last")
	}
}

// TestComposer checks joiners on units made up for them: the items a lead-in introduces
// follow it, a short section is quoted whole, and the answer is in page order by section,
// the best section first.
func TestComposer(t *testing.T) {
	q := testQuestion("retri", "polici")
	best := testSection("/docs/a#policy", "", "retri polici is:", "kind:row first row", "kind:row second row")
	other := testSection("/docs/b#other", "", "retri polici elsewher too")
	// The best unit first, the other section's unit second, then the rows.
	cands := []scored{q.score(best.units[0], 0), q.score(other.units[0], 0), q.score(best.units[1], 0), q.score(best.units[2], 0)}
	cands[0].score, cands[1].score = 2, 1

	c := newComposer(q, cands)
	c.joinFollowing()
	if got := texts(c.units()); !slices.Equal(got, []string{"retri polici is:", "first row", "second row"}) {
		t.Errorf("a lead-in and what it introduces: %q", got)
	}

	c = newComposer(q, cands)
	c.chosen = append(c.chosen, cands[1])
	c.joinShortSection()
	if got := texts(c.units()); !slices.Equal(got, []string{"retri polici is:", "first row", "second row", "retri polici elsewher too"}) {
		t.Errorf("a short section whole, in page order, then the other section: %q", got)
	}
}
