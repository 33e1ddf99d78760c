package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestListQueriesUseIndexes runs EXPLAIN QUERY PLAN on every list query the services build
// and fails on a full scan of messages or call_recordings (a "SCAN" that is not in index
// order). A table scan that works on the demo data would be seconds at a million rows.
func TestListQueriesUseIndexes(t *testing.T) {
	db := openTestDB(t, testdb.SQLite, "plan.db")
	// ANALYZE-free plans are what a fresh database gets; test those.
	member := &answerdesk.Caller{UserID: 1, AccountIDs: []int64{1}}
	multi := &answerdesk.Caller{UserID: 2, AccountIDs: []int64{1, 2}}
	admin := &answerdesk.Caller{UserID: 3, Admin: true}
	read := true
	mq := map[string]answerdesk.MessageQuery{
		"plain":   {Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"origin":  {Origin: "CALL", Paging: answerdesk.Paging{Page: 1000, PageSize: 50}},
		"status":  {Status: "new", Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"dates":   {Since: 86400000, Until: 2 * 86400000, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"all":     {Origin: "CALL", Status: "new", Since: 1, Until: 2, Read: &read, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"hours":   {Since: 3600000, Until: 7200000, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"read":    {Read: &read, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"recents": {Paging: answerdesk.Paging{Page: 1, PageSize: 20}},
		"words":   {Words: []string{"water", "he"}, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"phone":   {Phones: []string{"5555550142"}, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"caller":  {CallerID: "5555550142", Status: "new", Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
	}
	rq := map[string]answerdesk.RecordingQuery{
		"plain":   {Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"skill":   {SkillName: "Main", Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
		"account": {AccountID: 1, Since: 1, Until: 2, Paging: answerdesk.Paging{Page: 1, PageSize: 50}},
	}
	callers := map[string]*answerdesk.Caller{"member": member, "multi": multi, "admin": admin}
	for cn, c := range callers {
		for qn, q := range mq {
			where, args := messageWhere(db.d, c, q)
			count, countArgs := countSQL(db.d, c, q)
			assertPlan(t, db, cn+"/messages/"+qn+"/count", count, countArgs...)
			from, fromArgs := db.d.messageSource(q)
			page := messageListSQL
			if q.Searching() && db.d.countsInSearch {
				page = messageSearchSQL
			}
			assertPlan(t, db, cn+"/messages/"+qn+"/page", page(from, where, q.Paging), slices.Concat(fromArgs, args, []any{q.Offset()})...)
		}
		for qn, q := range rq {
			where, args := recordingWhere(c, q)
			assertPlan(t, db, cn+"/recordings/"+qn+"/count", `SELECT count(*) FROM call_recordings WHERE `+where, args...)
			assertPlan(t, db, cn+"/recordings/"+qn+"/page", `SELECT id FROM call_recordings WHERE `+where+` ORDER BY started_at DESC, id DESC LIMIT 50`, args...)
		}
	}
}

func assertPlan(t *testing.T, db *DB, name, query string, args ...any) {
	t.Helper()
	rows, err := db.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
		for _, table := range []string{"messages", "call_recordings"} {
			// "SCAN messages" alone is a full table scan; "SCAN messages USING [COVERING] INDEX x"
			// walks an index in order (with LIMIT, only as far as the page needs).
			if strings.HasPrefix(detail, "SCAN "+table) && !strings.Contains(detail, "INDEX") {
				t.Errorf("%s: full scan of %s: %q\nquery: %s", name, table, detail, query)
			}
		}
	}
	if len(plan) == 0 {
		t.Fatalf("%s: no plan", name)
	}
}
