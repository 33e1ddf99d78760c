//go:build race

package search

// raceEnabled: the race detector slows indexing several times; time budgets are not checked.
const raceEnabled = true
