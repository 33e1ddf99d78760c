package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/answerdesk/answerdesk"
)

// RecordingFetches implements answerdesk.RecordingFetchQueue: the fetches Twilio's
// recording callbacks asked for, claimed under a lease as dispatch deliveries are.
type RecordingFetches struct{ db *DB }

// NewRecordingFetches returns the fetch queue over db.
func NewRecordingFetches(db *DB) *RecordingFetches { return &RecordingFetches{db: db} }

var _ answerdesk.RecordingFetchQueue = (*RecordingFetches)(nil)

// EnqueueRecordingFetch queues f unless its recording sid is queued already.
func (q *RecordingFetches) EnqueueRecordingFetch(ctx context.Context, f *answerdesk.RecordingFetch) error {
	var accountID int64
	err := q.db.rd.QueryRowContext(ctx, `SELECT id FROM accounts WHERE number = ?`, f.AccountNumber).Scan(&accountID)
	if errors.Is(err, sql.ErrNoRows) {
		return answerdesk.FieldErr("account", "is not an account of this service")
	}
	if err != nil {
		return fmt.Errorf("find account %q: %w", f.AccountNumber, err)
	}
	now := q.db.now().UnixMilli()
	_, err = q.db.write.ExecContext(ctx, `INSERT INTO recording_fetches (account_id, recording_sid, call_sid, url, started_at,
		duration_sec, status, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)
		ON CONFLICT (recording_sid) DO NOTHING`,
		accountID, f.RecordingSID, f.CallSID, f.URL, f.StartedAt.UnixMilli(), f.DurationSec, now, now, now)
	if err != nil {
		return fmt.Errorf("queue the fetch of recording %s: %w", f.RecordingSID, err)
	}
	return nil
}

// ClaimRecordingFetches leases due fetches: pending ones, and those whose lease ran out
// (a worker that died mid-fetch).
func (q *RecordingFetches) ClaimRecordingFetches(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*answerdesk.ClaimedRecordingFetch, error) {
	var out []*answerdesk.ClaimedRecordingFetch
	nowMS := now.UnixMilli()
	err := q.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `SELECT f.id, a.number, f.recording_sid, f.call_sid, f.url, f.started_at, f.duration_sec,
			f.attempts FROM recording_fetches f JOIN accounts a ON a.id = f.account_id
			WHERE f.status IN ('pending', 'fetching') AND f.next_attempt_at <= ? AND (f.status = 'pending' OR f.lease_until <= ?)
			ORDER BY f.next_attempt_at LIMIT ?`+q.db.d.claim("f"), nowMS, nowMS, limit)
		if err != nil {
			return fmt.Errorf("find due recording fetches: %w", err)
		}
		var ids []any
		for rows.Next() {
			f := &answerdesk.ClaimedRecordingFetch{}
			var started int64
			if err := rows.Scan(&f.ID, &f.AccountNumber, &f.RecordingSID, &f.CallSID, &f.URL, &started, &f.DurationSec, &f.Attempts); err != nil {
				rows.Close()
				return fmt.Errorf("scan recording fetch: %w", err)
			}
			f.StartedAt = time.UnixMilli(started).UTC()
			f.Claim = int64(f.Attempts) + 1
			out = append(out, f)
			ids = append(ids, f.ID)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE recording_fetches SET status = 'fetching', lease_until = ?, attempts = attempts + 1, updated_at = ?
			WHERE id IN (`+placeholders(len(ids))+`)`, append([]any{now.Add(lease).UnixMilli(), nowMS}, ids...)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SettleRecordingFetch records what the attempt of f came to, if f still holds its claim.
func (q *RecordingFetches) SettleRecordingFetch(ctx context.Context, f *answerdesk.ClaimedRecordingFetch, status string, retryAt time.Time, errText string) error {
	now := q.db.now().UnixMilli()
	next := now
	if status == answerdesk.FetchPending {
		next = retryAt.UnixMilli()
	}
	var last any
	if errText != "" {
		last = truncateUTF8(errText, answerdesk.MaxAttemptErrorBytes)
	}
	_, err := q.db.write.ExecContext(ctx, `UPDATE recording_fetches SET status = ?, next_attempt_at = ?, lease_until = NULL,
		last_error = ?, updated_at = ? WHERE id = ? AND status = 'fetching' AND attempts = ?`, status, next, last, now, f.ID, f.Claim)
	if err != nil {
		return fmt.Errorf("settle the fetch of recording %s: %w", f.RecordingSID, err)
	}
	return nil
}
