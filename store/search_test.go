package store

import (
	"strings"
	"testing"
)

// TestAccentFoldingMatchesTheIndex: the accents PostgreSQL's message index folds
// (translate() in migration 0022) are the ones foldAccents folds in a query, rune for rune.
func TestAccentFoldingMatchesTheIndex(t *testing.T) {
	b, err := migrationFS.ReadFile("migrations/0022_message_search.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "'"+accentsFrom+"', '"+accentsTo+"'") {
		t.Error("migration 0022 folds other accents than foldAccents")
	}
	if got := foldAccents("Café Ñandú Łódź"); got != "Cafe Nandu Lodz" {
		t.Errorf("foldAccents: %q", got)
	}
}
