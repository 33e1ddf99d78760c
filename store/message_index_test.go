package store

import (
	"context"
	"slices"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestMessageIndexNumbers: each engine's message index holds every number of a message as
// answerdesk.PhoneDigits normalises it, from each of the four number columns, and follows a
// number that changes: the old one no longer finds the message, the new one does. The
// caller's number alone is found by caller_id.
func TestMessageIndexNumbers(t *testing.T) {
	for _, engine := range testdb.Engines() {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := openTestDB(t, engine, "index.db")
			acct := createTestAccounts(t, db, "1001")[0]
			admin := &answerdesk.Caller{UserID: 1, Admin: true, Scopes: answerdesk.AllScopes}
			insert := func(column, number string) int64 {
				t.Helper()
				var id int64
				err := db.write.QueryRowContext(ctx, `INSERT INTO messages (uuid, account_id, content, origin, created_at, updated_at, `+column+`)
					VALUES (?, ?, 'x', 'CALL', 1, 1, ?) RETURNING id`, column, acct.ID, number).Scan(&id)
				if err != nil {
					t.Fatalf("insert %s: %v", column, err)
				}
				return id
			}
			find := func(q answerdesk.MessageQuery) []int64 {
				t.Helper()
				q.Paging = answerdesk.Paging{Page: 1, PageSize: 50}
				list, meta, err := NewMessageService(db).FindMessages(ctx, admin, q)
				if err != nil {
					t.Fatal(err)
				}
				var ids []int64
				for _, m := range list {
					ids = append(ids, m.ID)
				}
				slices.Sort(ids)
				if meta.Total != len(ids) {
					t.Errorf("%+v: total %d, %d on the page", q, meta.Total, len(ids))
				}
				return ids
			}
			caller := insert("caller_id", "+1 (555) 555-0142")
			phone := insert("phone", "1.555.555.0143")
			alt := insert("alt_phone", "555/555-0144")
			number := insert("phone_number", "+44 20 7946 0958")
			for _, c := range []struct {
				query answerdesk.MessageQuery
				want  []int64
			}{
				{answerdesk.MessageQuery{Phones: []string{answerdesk.PhoneDigits("5555550142")}}, []int64{caller}},
				{answerdesk.MessageQuery{CallerID: answerdesk.PhoneDigits("555-555-0142")}, []int64{caller}},
				{answerdesk.MessageQuery{Phones: []string{answerdesk.PhoneDigits("+1 555 555 0143")}}, []int64{phone}},
				{answerdesk.MessageQuery{CallerID: answerdesk.PhoneDigits("5555550143")}, nil},
				{answerdesk.MessageQuery{Phones: []string{answerdesk.PhoneDigits("(555) 555-0144")}}, []int64{alt}},
				{answerdesk.MessageQuery{Phones: []string{answerdesk.PhoneDigits("+442079460958")}}, []int64{number}},
			} {
				if got := find(c.query); !slices.Equal(got, c.want) {
					t.Errorf("%+v: found %v, want %v", c.query, got, c.want)
				}
			}
			if _, err := db.write.ExecContext(ctx, `UPDATE messages SET phone = '555 555 0199' WHERE id = ?`, phone); err != nil {
				t.Fatal(err)
			}
			if got := find(answerdesk.MessageQuery{Phones: []string{"5555550143"}}); got != nil {
				t.Errorf("the old number still finds %v", got)
			}
			if got := find(answerdesk.MessageQuery{Phones: []string{"5555550199"}}); !slices.Equal(got, []int64{phone}) {
				t.Errorf("the new number finds %v, want [%d]", got, phone)
			}
		})
	}
}
