//go:build calib

package search

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

// TestCalibSpecWords prints the words of the files in CALIB_SPEC (the spec the outside
// question writers read) that the docs never use and have no synonym for: the vocabulary
// gap between the spec and the docs.
func TestCalibSpecWords(t *testing.T) {
	path := os.Getenv("CALIB_SPEC")
	if path == "" {
		t.Skip("CALIB_SPEC not set")
	}
	ix := shippedIndex(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, term := range ix.terms(string(b)) {
		if !ix.ans.known[term] && len(ix.ans.syn[term]) == 0 {
			count[term]++
		}
	}
	var ws []string
	for w := range count {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool { return count[ws[i]] > count[ws[j]] })
	for _, w := range ws {
		fmt.Printf("%s:%d ", w, count[w])
	}
	fmt.Println()
}
