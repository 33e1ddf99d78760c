package store

import (
	"context"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestDataVersionChangesOnEveryWrite: every kind of write to an account's messages or call
// recordings, made through SQL as any code path (the dispatcher, retention) makes it, bumps
// that account's data version and no other account's.
func TestDataVersionChangesOnEveryWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t, testdb.SQLite, "versions.db")
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	accounts := createTestAccounts(t, db, "1001", "1002")
	acme, birch := accounts[0], accounts[1]
	insertTestMessages(t, db, "1001", 5, 1, now)
	skill := "Sales"
	rec := &answerdesk.CallRecording{AccountID: acme.ID, CallID: 7, CallSID: "CA1", DIDNumber: "+1", From: "+2",
		StartedAt: answerdesk.NewTime(now.AddDate(0, 0, -40)), CDR: answerdesk.CDR{ID: 7, UniqueCallID: 7, CallType: "InboundCall",
			CallerID: "+2", NumberDialed: "+1", DID: "+1", SkillName: &skill, StartTime: answerdesk.NewTime(now), CallCreatedAt: answerdesk.NewTime(now)}}
	if err := db.CreateCallRecording(ctx, rec, &answerdesk.Audio{ContentType: "audio/wav", Data: []byte("RIFF")}); err != nil {
		t.Fatal(err)
	}
	caller := func(id int64) *answerdesk.Caller {
		return &answerdesk.Caller{AccountIDs: []int64{id}, Scopes: answerdesk.AllScopes}
	}
	version := func(id int64) int64 {
		t.Helper()
		v, err := db.DataVersion(ctx, caller(id), answerdesk.ScopeMessagesRead)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	exec := func(stmt string, args ...any) func() error {
		return func() error { _, err := db.write.ExecContext(ctx, stmt, args...); return err }
	}
	purge := func() error {
		_, _, err := NewRecordingService(db, nil).PurgeRecordings(ctx, now.AddDate(0, 0, -31), now.AddDate(-3, 0, 0))
		return err
	}
	for _, tc := range []struct {
		name  string
		write func() error
	}{
		{"insert message", exec(`INSERT INTO messages (uuid, account_id, content, origin, created_at, updated_at) VALUES ('u-1', ?, 'x', 'CALL', 1, 1)`, acme.ID)},
		{"acknowledge", exec(`UPDATE messages SET status = 'acknowledged' WHERE id = 1`)},
		{"read", exec(`UPDATE messages SET read = 1 WHERE id = 2`)},
		{"escalation step", exec(`UPDATE messages SET escalation_level_id = 3, escalation_counter = escalation_counter + 1 WHERE id = 3`)},
		{"dispatch status", exec(`UPDATE messages SET status = 'delivered', delivered_at = 5 WHERE id = 4`)},
		{"delete message", exec(`DELETE FROM messages WHERE id = 5`)},
		{"audio expiry", purge},
		{"recording update", exec(`UPDATE call_recordings SET talk_sec = 9`)},
		{"account renumbered", exec(`UPDATE accounts SET number = '1003' WHERE id = ?`, acme.ID)},
		{"delete recording", exec(`DELETE FROM call_recordings`)},
	} {
		before, other := version(acme.ID), version(birch.ID)
		if err := tc.write(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if after := version(acme.ID); after <= before {
			t.Errorf("%s: version %d -> %d, want it to grow", tc.name, before, after)
		}
		if got := version(birch.ID); got != other {
			t.Errorf("%s: the other account's version moved %d -> %d", tc.name, other, got)
		}
	}
	// Moving a message between accounts changes both.
	a, b := version(acme.ID), version(birch.ID)
	if err := exec(`UPDATE messages SET account_id = ? WHERE id = 1`, birch.ID)(); err != nil {
		t.Fatal(err)
	}
	if version(acme.ID) <= a || version(birch.ID) <= b {
		t.Error("moving a message did not change both accounts' versions")
	}
	// The version needs the scope asked for.
	if _, err := db.DataVersion(ctx, &answerdesk.Caller{AccountIDs: []int64{acme.ID}}, answerdesk.ScopeMessagesRead); answerdesk.ErrorCode(err) != answerdesk.EFORBIDDEN {
		t.Errorf("without the scope: %v, want forbidden", err)
	}
}
