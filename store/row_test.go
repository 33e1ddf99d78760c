package store

import (
	"context"
	"slices"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestMessageRowColumns checks that every field of a message has its column in the
// messages table, on each engine, so that a field added without its migration fails here
// by name rather than as a 500 on the first message read.
func TestMessageRowColumns(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db := openTestDB(t, engine, "row.db")
		rows, err := db.read.QueryContext(context.Background(), `SELECT * FROM messages LIMIT 0`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		have, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		if len(messageRow.columns) < 50 {
			t.Fatalf("the message layout has %d columns: %v", len(messageRow.columns), messageRow.columns)
		}
		for _, c := range messageRow.columns {
			if !slices.Contains(have, c) {
				t.Errorf("Message has a field %q but the messages table has no such column: add a migration", c)
			}
		}
	})
}
