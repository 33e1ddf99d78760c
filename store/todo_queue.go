package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/answerdesk/answerdesk"
)

// MaterializeDue turns due schedules into pending occurrences, in one transaction.
// UNIQUE (to_do_id, scheduled_at) makes it safe to run twice for the same occurrence.
func (s *ToDoService) MaterializeDue(ctx context.Context, now time.Time, limit int, channelFor func(deliveryType string) string) (int, error) {
	n := 0
	err := s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx, `SELECT s.id, s.schedulable_id, s.rule, s.times, s.starts_at, s.next_occurrence, t.delivery_type
			FROM schedules s JOIN to_dos t ON t.id = s.schedulable_id
			WHERE s.next_occurrence IS NOT NULL AND s.next_occurrence <= ? AND t.state = 'active'
			ORDER BY s.next_occurrence LIMIT ?`+s.db.d.claim("s"), now.UnixMilli(), limit)
		if err != nil {
			return fmt.Errorf("find due schedules: %w", err)
		}
		type due struct {
			scheduleID, toDoID, start, next int64
			rule, times, deliveryType       string
		}
		var list []due
		for rows.Next() {
			var d due
			if err := rows.Scan(&d.scheduleID, &d.toDoID, &d.rule, &d.times, &d.start, &d.next, &d.deliveryType); err != nil {
				rows.Close()
				return fmt.Errorf("scan due schedule: %w", err)
			}
			list = append(list, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		nowMS := now.UnixMilli()
		for _, d := range list {
			var rule map[string]any
			var times []string
			if err := json.Unmarshal([]byte(d.rule), &rule); err != nil {
				return fmt.Errorf("decode rule of schedule %d: %w", d.scheduleID, err)
			}
			if err := json.Unmarshal([]byte(d.times), &times); err != nil {
				return fmt.Errorf("decode times of schedule %d: %w", d.scheduleID, err)
			}
			plan, err := answerdesk.PlanFromRule(rule, times, time.UnixMilli(d.start))
			if err != nil {
				return fmt.Errorf("schedule %d: %w", d.scheduleID, err)
			}
			at, skipped, skippedCount := plan.Due(time.UnixMilli(d.next), now)
			for i, sk := range skipped {
				msg := "missed while the service was not running; only the latest missed occurrence is sent"
				if i == len(skipped)-1 && skippedCount > len(skipped) {
					msg += fmt.Sprintf(" (%d more missed occurrences not listed)", skippedCount-len(skipped))
				}
				// RETURNING gives no row when the occurrence was there already.
				var id int64
				err := tx.QueryRowContext(ctx, `INSERT INTO to_do_occurrences (to_do_id, scheduled_at, status, due_at, error, updated_at)
					VALUES (?, ?, 'skipped', ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`, d.toDoID, sk.UnixMilli(), nowMS, msg, nowMS).Scan(&id)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("record skipped occurrence: %w", err)
				}
				if err == nil {
					if _, err := tx.ExecContext(ctx, `INSERT INTO to_do_attempts (occurrence_id, to_do_id, at, channel, status, error)
						VALUES (?, ?, ?, ?, 'skipped', ?)`, id, d.toDoID, nowMS, channelFor(d.deliveryType), msg); err != nil {
						return fmt.Errorf("record skipped attempt: %w", err)
					}
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO to_do_occurrences (to_do_id, scheduled_at, status, due_at, updated_at)
				VALUES (?, ?, 'pending', ?, ?) ON CONFLICT DO NOTHING`, d.toDoID, at.UnixMilli(), nowMS, nowMS); err != nil {
				return fmt.Errorf("insert occurrence: %w", err)
			}
			var next *int64
			if nx, ok := plan.Next(at); ok {
				ms := nx.UnixMilli()
				next = &ms
			}
			if _, err := tx.ExecContext(ctx, `UPDATE schedules SET previous_occurrence = ?, next_occurrence = ?, updated_at = ? WHERE id = ?`,
				at.UnixMilli(), next, nowMS, d.scheduleID); err != nil {
				return fmt.Errorf("advance schedule %d: %w", d.scheduleID, err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// ClaimOccurrences leases due occurrences. The claim is one write transaction (BEGIN
// IMMEDIATE), so two schedulers, in one process or two, never take the same occurrence.
func (s *ToDoService) ClaimOccurrences(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*answerdesk.Occurrence, error) {
	var occs []*answerdesk.Occurrence
	nowMS := now.UnixMilli()
	err := s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		occs = nil
		// A waiting occurrence starts only while its To Do is active: a pause or cancel that
		// committed first has dropped it already, and this condition keeps it so. One whose
		// lease expired was claimed before (it may be at the provider), so it is finished.
		rows, err := tx.QueryContext(ctx, `SELECT o.id, o.to_do_id, o.scheduled_at, o.attempts FROM to_do_occurrences o
			JOIN to_dos t ON t.id = o.to_do_id
			WHERE o.status IN ('pending', 'sending') AND o.due_at <= ?
			AND ((o.status = 'pending' AND t.state = 'active') OR (o.status = 'sending' AND o.lease_until <= ?))
			ORDER BY o.due_at LIMIT ?`+s.db.d.claim("o"), nowMS, nowMS, limit)
		if err != nil {
			return fmt.Errorf("find due occurrences: %w", err)
		}
		var ids []any
		toDoIDs := map[int64][]*answerdesk.Occurrence{}
		for rows.Next() {
			var o answerdesk.Occurrence
			var toDoID, at int64
			if err := rows.Scan(&o.ID, &toDoID, &at, &o.Attempts); err != nil {
				rows.Close()
				return fmt.Errorf("scan occurrence: %w", err)
			}
			o.ScheduledAt = time.UnixMilli(at).UTC()
			o.Key = fmt.Sprintf("todo-%d-%d", toDoID, at)
			occs = append(occs, &o)
			ids = append(ids, o.ID)
			toDoIDs[toDoID] = append(toDoIDs[toDoID], &o)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(occs) == 0 {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE to_do_occurrences SET status = 'sending', lease_until = ?, attempts = attempts + 1, updated_at = ?
			WHERE id IN (`+placeholders(len(ids))+`)`, append([]any{now.Add(lease).UnixMilli(), nowMS}, ids...)...); err != nil {
			return fmt.Errorf("lease occurrences: %w", err)
		}
		var tIDs []any
		for id := range toDoIDs {
			tIDs = append(tIDs, id)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE to_dos SET is_sending = 1 WHERE id IN (`+placeholders(len(tIDs))+`)`, tIDs...); err != nil {
			return fmt.Errorf("mark to-dos sending: %w", err)
		}
		trows, err := tx.QueryContext(ctx, `SELECT `+toDoColumns+toDoFrom+` WHERE t.id IN (`+placeholders(len(tIDs))+`)`, tIDs...)
		if err != nil {
			return fmt.Errorf("load to-dos: %w", err)
		}
		defer trows.Close()
		for trows.Next() {
			t, err := scanToDo(trows)
			if err != nil {
				return fmt.Errorf("scan to-do: %w", err)
			}
			for _, o := range toDoIDs[t.ID] {
				o.ToDo = t
			}
		}
		return trows.Err()
	})
	if err != nil {
		return nil, err
	}
	return occs, nil
}

// RecordAttempts stores each attempt and settles its occurrence: sent and failed are final,
// retry makes it pending again at RetryAt. An attempt whose lease was taken over meanwhile
// is still recorded, but does not settle the occurrence another worker now holds.
func (s *ToDoService) RecordAttempts(ctx context.Context, results []answerdesk.AttemptResult) error {
	if len(results) == 0 {
		return nil
	}
	return s.db.tx(ctx, func(tx *sql.Tx) error {
		toDos := map[int64]bool{}
		for _, r := range results {
			o := r.Occurrence
			var errText *string
			if r.Error != "" {
				e := truncateUTF8(r.Error, 2000)
				errText = &e
			}
			var provider *string
			if r.ProviderID != "" {
				provider = &r.ProviderID
			}
			at := r.At.UnixMilli()
			if _, err := tx.ExecContext(ctx, `INSERT INTO to_do_attempts (occurrence_id, to_do_id, at, channel, status, provider_id, error, duration_ms)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, o.ID, o.ToDo.ID, at, r.Channel, r.Status, provider, errText, r.Duration.Milliseconds()); err != nil {
				return fmt.Errorf("record attempt of occurrence %d: %w", o.ID, err)
			}
			status, due := r.Status, at
			if r.Status == answerdesk.AttemptRetry {
				status, due = "pending", r.RetryAt.UnixMilli()
				// A To Do paused or cancelled while this attempt was out is not retried.
				var state string
				if err := tx.QueryRowContext(ctx, `SELECT state FROM to_dos WHERE id = ?`, o.ToDo.ID).Scan(&state); err != nil {
					return fmt.Errorf("state of to-do %d: %w", o.ToDo.ID, err)
				}
				if state != answerdesk.ToDoActive {
					status = "failed"
					e := truncateUTF8(r.Error, 1900) + " (not retried: the To Do is " + state + ")"
					errText = &e
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE to_do_occurrences SET status = ?, due_at = ?, lease_until = NULL,
				provider_id = coalesce(?, provider_id), error = ?, updated_at = ?
				WHERE id = ? AND status = 'sending' AND attempts = ?`,
				status, due, provider, errText, at, o.ID, o.Attempts+1); err != nil {
				return fmt.Errorf("settle occurrence %d: %w", o.ID, err)
			}
			toDos[o.ToDo.ID] = true
		}
		if err := s.refreshSending(ctx, tx, toDos); err != nil {
			return err
		}
		return s.settleStates(ctx, tx, toDos, s.db.now().UnixMilli())
	})
}

// refreshSending sets is_sending from whether each To Do still has an occurrence in flight.
func (s *ToDoService) refreshSending(ctx context.Context, tx *sql.Tx, toDos map[int64]bool) error {
	now := s.db.now().UnixMilli()
	for id := range toDos {
		if _, err := tx.ExecContext(ctx, `UPDATE to_dos SET updated_at = ?, is_sending = CASE WHEN EXISTS (
			SELECT 1 FROM to_do_occurrences WHERE to_do_id = ? AND status = 'sending') THEN 1 ELSE 0 END WHERE id = ?`, now, id, id); err != nil {
			return fmt.Errorf("update to-do %d: %w", id, err)
		}
	}
	return nil
}

// ReleaseOccurrences returns occurrences to pending without counting an attempt.
func (s *ToDoService) ReleaseOccurrences(ctx context.Context, occs []*answerdesk.Occurrence, now time.Time) error {
	if len(occs) == 0 {
		return nil
	}
	return s.db.tx(ctx, func(tx *sql.Tx) error {
		toDos := map[int64]bool{}
		for _, o := range occs {
			if _, err := tx.ExecContext(ctx, `UPDATE to_do_occurrences SET status = 'pending', lease_until = NULL, due_at = ?,
				attempts = attempts - 1, updated_at = ? WHERE id = ? AND status = 'sending' AND attempts = ?`,
				now.UnixMilli(), now.UnixMilli(), o.ID, o.Attempts+1); err != nil {
				return fmt.Errorf("release occurrence %d: %w", o.ID, err)
			}
			toDos[o.ToDo.ID] = true
		}
		return s.refreshSending(ctx, tx, toDos)
	})
}

// StartOccurrence checks that a claimed occurrence may start now: it is still this claim's
// (same attempt number), its To Do is still active, and the account still allows its
// sender. A batch is claimed at once but sent by a few workers, so an occurrence can wait
// a while after its claim; a pause or cancel that commits meanwhile must stop it ("no
// later one starts"), which dropPending cannot do for claimed occurrences. Such an
// occurrence is settled as skipped with the reason; one whose sender was withdrawn, as
// failed. The check is a read: the writer is taken only to settle such an occurrence or
// to renew a lease that half ran out while the occurrence waited, so that another
// scheduler does not take over an occurrence that is being sent. Most sends need no write.
func (s *ToDoService) StartOccurrence(ctx context.Context, o *answerdesk.Occurrence, now time.Time, lease time.Duration) (bool, error) {
	var state, from, fromEmail string
	var smsOK, domainOK, blacklisted bool
	var leaseUntil int64
	err := s.db.rd.QueryRowContext(ctx, `SELECT t.state, coalesce(t.from_number, ''), coalesce(t.from_email, ''),
		t.delivery_type <> 'sms' OR EXISTS (SELECT 1 FROM phone_numbers p
			WHERE p.id = t.phone_id AND p.account_id = t.account_id AND p.sms_enabled = 1),
		t.delivery_type <> 'email' OR EXISTS (SELECT 1 FROM sending_domains d
			WHERE d.account_id = t.account_id AND d.domain = substr(t.from_email, instr(t.from_email, '@') + 1)),
		t.delivery_type = 'email' AND EXISTS (SELECT 1 FROM email_blacklist b
			WHERE b.account_id = t.account_id AND b.email = t.from_email),
		coalesce(o.lease_until, 0)
		FROM to_do_occurrences o JOIN to_dos t ON t.id = o.to_do_id
		WHERE o.id = ? AND o.status = 'sending' AND o.attempts = ?`, o.ID, o.Attempts+1).
		Scan(&state, &from, &fromEmail, &smsOK, &domainOK, &blacklisted, &leaseUntil)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // taken over by another claim: that one sends it
	}
	if err != nil {
		return false, fmt.Errorf("check occurrence %d: %w", o.ID, err)
	}
	nowMS := now.UnixMilli()
	// The sender was checked when the To Do was made; an admin may have withdrawn it
	// since. Sending from it anyway would send from an address or number the account
	// may no longer use, so the occurrence fails, saying why, until the To Do is changed.
	var status, reason string
	switch {
	case state == answerdesk.ToDoCancelled:
		status, reason = "skipped", dropCancelled
	case state != answerdesk.ToDoActive:
		status, reason = "skipped", dropPaused
	case !smsOK:
		status, reason = "failed", "not sent: "+from+" is no longer an SMS-enabled number of the account"
	case !domainOK:
		status, reason = "failed", "not sent: the domain of "+fromEmail+" is no longer an authenticated sending domain of the account"
	case blacklisted:
		status, reason = "failed", "not sent: "+fromEmail+" is on the account's email blacklist"
	}
	if status == "" {
		if leaseUntil-nowMS >= lease.Milliseconds()/2 {
			return true, nil
		}
		res, err := s.db.write.ExecContext(ctx, `UPDATE to_do_occurrences SET lease_until = ?, updated_at = ?
			WHERE id = ? AND status = 'sending' AND attempts = ?`, now.Add(lease).UnixMilli(), nowMS, o.ID, o.Attempts+1)
		if err != nil {
			return false, fmt.Errorf("renew lease of occurrence %d: %w", o.ID, err)
		}
		n, _ := res.RowsAffected()
		return n == 1, nil
	}
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE to_do_occurrences SET status = ?, error = ?, lease_until = NULL, updated_at = ?
			WHERE id = ? AND status = 'sending' AND attempts = ?`, status, reason, nowMS, o.ID, o.Attempts+1)
		if err != nil {
			return fmt.Errorf("settle occurrence %d: %w", o.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // taken over meanwhile
		}
		toDos := map[int64]bool{o.ToDo.ID: true}
		if err := s.refreshSending(ctx, tx, toDos); err != nil {
			return err
		}
		return s.settleStates(ctx, tx, toDos, nowMS)
	})
	return false, err
}

// ToDoDeliveries returns the attempts of a To Do, newest first: what operators and tests
// read to see what was sent.
func (s *ToDoService) ToDoDeliveries(ctx context.Context, toDoID int64) ([]answerdesk.AttemptResult, error) {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT a.occurrence_id, o.scheduled_at, a.at, a.channel, a.status,
		coalesce(a.provider_id, ''), coalesce(a.error, ''), a.duration_ms
		FROM to_do_attempts a JOIN to_do_occurrences o ON o.id = a.occurrence_id
		WHERE a.to_do_id = ? ORDER BY a.id DESC`, toDoID)
	if err != nil {
		return nil, fmt.Errorf("list attempts of to-do %d: %w", toDoID, err)
	}
	defer rows.Close()
	var out []answerdesk.AttemptResult
	for rows.Next() {
		var r answerdesk.AttemptResult
		var o answerdesk.Occurrence
		var scheduled, at, dur int64
		if err := rows.Scan(&o.ID, &scheduled, &at, &r.Channel, &r.Status, &r.ProviderID, &r.Error, &dur); err != nil {
			return nil, fmt.Errorf("scan attempt: %w", err)
		}
		o.ScheduledAt = time.UnixMilli(scheduled).UTC()
		o.Key = "todo-" + strconv.FormatInt(toDoID, 10) + "-" + strconv.FormatInt(scheduled, 10)
		r.Occurrence, r.At, r.Duration = &o, time.UnixMilli(at).UTC(), time.Duration(dur)*time.Millisecond
		out = append(out, r)
	}
	return out, rows.Err()
}
