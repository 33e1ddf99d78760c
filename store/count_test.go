package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestMessageCountsMatchMessages changes messages every way the schema allows and checks
// that the rollup's totals equal a count of the messages for every filter combination.
func TestMessageCountsMatchMessages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		db := openTestDB(t, engine, "counts.db")
		now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		for _, a := range createTestAccounts(t, db, "1001", "1002") {
			insertTestMessages(t, db, a.Number, 300, 10, now)
		}
		// Updates of every counted column, and deletes, all through SQL as any future code might.
		r := rand.New(rand.NewPCG(1, 2))
		for i := range 200 {
			id := r.IntN(600) + 1
			var stmt string
			switch i % 6 {
			case 0:
				stmt = `UPDATE messages SET read = 1 - read WHERE id = ?`
			case 1:
				stmt = `UPDATE messages SET status = 'acknowledged' WHERE id = ?`
			case 2:
				stmt = `UPDATE messages SET origin = 'SMS' WHERE id = ?`
			case 3:
				stmt = `UPDATE messages SET created_at = created_at - 86400000 WHERE id = ?`
			case 4:
				stmt = `UPDATE messages SET account_id = 3 - account_id WHERE id = ?`
			case 5:
				stmt = `DELETE FROM messages WHERE id = ?`
			}
			if _, err := db.write.ExecContext(ctx, stmt, id); err != nil {
				t.Fatal(err)
			}
		}
		yes, no := true, false
		day := func(d int) int64 { return now.AddDate(0, 0, -d).Truncate(24 * time.Hour).UnixMilli() }
		callers := []*answerdesk.Caller{{AccountIDs: []int64{1}}, {AccountIDs: []int64{1, 2}}, {Admin: true}}
		for ci, c := range callers {
			for _, origin := range []string{"", "CALL", "SMS"} {
				for _, status := range []string{"", "new", "acknowledged"} {
					for _, read := range []*bool{nil, &yes, &no} {
						for _, span := range [][2]int64{{0, 0}, {day(5), 0}, {0, day(2)}, {day(8), day(3)}} {
							q := answerdesk.MessageQuery{Origin: origin, Status: status, Read: read, Since: span[0], Until: span[1]}
							rollup, args := countSQL(db.d, c, q)
							where, wargs := messageWhere(db.d, c, q)
							var got, want int
							if err := db.read.QueryRowContext(ctx, rollup, args...).Scan(&got); err != nil {
								t.Fatal(err)
							}
							if err := db.read.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE `+where, wargs...).Scan(&want); err != nil {
								t.Fatal(err)
							}
							if got != want {
								t.Fatalf("caller %d %s: rollup %d, messages %d", ci, fmt.Sprint(q), got, want)
							}
						}
					}
				}
			}
		}
	})
}
