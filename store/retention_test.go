package store_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/answerdesk/answerdesk/store"
)

func TestPurgeRecordings(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		db, err := store.Open(ctx, testdb.DSN(t, engine, "retention.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		acct, err := db.CreateAccount(ctx, "1001", "Acme", "")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		svc := store.NewRecordingService(db, &answerdesk.AudioSigner{Key: []byte("k"), TTL: time.Minute, Now: func() time.Time { return now }})
		ages := []time.Duration{24 * time.Hour, 30 * 24 * time.Hour, 32 * 24 * time.Hour, 3*365*24*time.Hour - time.Hour, 3*365*24*time.Hour + time.Hour}
		ids := make([]int64, len(ages))
		for i, age := range ages {
			at := answerdesk.NewTime(now.Add(-age))
			r := &answerdesk.CallRecording{AccountID: acct.ID, CallID: int64(i + 1), CallSID: fmt.Sprintf("CA%d", i+1), DIDNumber: "+1", From: "+2", StartedAt: at,
				CDR: answerdesk.CDR{ID: int64(i + 1), UniqueCallID: int64(i + 1), CallType: "InboundCall", CallerID: "+2", NumberDialed: "+1", DID: "+1", StartTime: at, CallCreatedAt: at}}
			if err := db.CreateCallRecording(ctx, r, &answerdesk.Audio{ContentType: "audio/wav", Data: []byte("RIFF")}); err != nil {
				t.Fatal(err)
			}
			ids[i] = r.ID
		}
		audio, rows, err := svc.PurgeRecordings(ctx, now.Add(-31*24*time.Hour), now.Add(-3*365*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		// ages 32d and 3y-1h lose audio (the 3y+1h one is deleted whole, audio with it).
		if audio != 2 || rows != 1 {
			t.Fatalf("purged audio %d rows %d, want 2 and 1", audio, rows)
		}
		admin := &answerdesk.Caller{Admin: true, Scopes: answerdesk.AllScopes}
		for i, id := range ids {
			r, err := svc.FindCallRecording(ctx, admin, strconv.FormatInt(id, 10))
			switch {
			case i == 4:
				if answerdesk.ErrorCode(err) != answerdesk.ENOTFOUND {
					t.Fatalf("recording past 3 years still there: %v", err)
				}
				continue
			case err != nil:
				t.Fatal(err)
			}
			wantAudio := i < 2
			if (r.Recording != nil) != wantAudio {
				t.Errorf("recording aged %v: audio URL present %v, want %v", ages[i], r.Recording != nil, wantAudio)
			}
			_, err = svc.RecordingAudio(ctx, id)
			if (err == nil) != wantAudio {
				t.Errorf("recording aged %v: audio fetch err %v", ages[i], err)
			}
		}
		// A second run finds nothing more to do.
		if audio, rows, _ := svc.PurgeRecordings(ctx, now.Add(-31*24*time.Hour), now.Add(-3*365*24*time.Hour)); audio != 0 || rows != 0 {
			t.Fatalf("second purge removed %d/%d", audio, rows)
		}
	})
}
