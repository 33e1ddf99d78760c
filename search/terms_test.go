package search

import (
	"slices"
	"testing"
)

// TestJoinToDo: the docs' "To Do", and a tool's name built on it, are one word, todo.
func TestJoinToDo(t *testing.T) {
	ix := shippedIndex(t)
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Create a To Do", []string{"creat", "todo"}},
		{"`create_to_do` and `list_to_dos`", []string{"create_todo", "list_todo"}},
	} {
		got := ix.terms(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: terms %v, want %v", tc.in, got, tc.want)
		}
		if len(joinToDo(tc.in)) != len(tc.in) {
			t.Errorf("%q: joinToDo changed the length (match offsets would shift)", tc.in)
		}
	}
}
