package search

import (
	"os"
	"testing"
)

func TestThesDump(t *testing.T) {
	if os.Getenv("THES_DUMP") == "" {
		t.Skip()
	}
	ix := shippedIndex(t)
	for _, set := range []string{"tune", "dev2", "dev3"} {
		for _, q := range loadQA(t, set+".json") {
			pq := ix.prepare(q.Question)
			for _, qt := range pq.terms {
				if len(qt.thes) > 0 {
					t.Logf("%v %s: %s -> %v (df %d)", q.OffTopic, set, qt.term, qt.thes, ix.ans.df[qt.term])
				}
			}
		}
	}
}
