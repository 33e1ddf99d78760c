package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/google/uuid"
)

// The dispatch worker queue (answerdesk.DispatchQueue): a new message's deliveries are
// enqueued in its own transaction, escalations come due, the dispatcher claims deliveries
// under a lease and records what each attempt answered. The configuration API (on-call
// contacts, the deliveries list, replays) is in dispatch.go.

// levelPlan is what delivering a message at an escalation level writes: the level (0 when
// no level above the one asked for has contacts), the deliveries' payload share, the methods
// to queue one delivery for each, and when the escalation after it is due (nil: no level
// follows).
type levelPlan struct {
	level   int
	share   int
	methods []planMethod
	next    *int64
}

type planMethod struct {
	contactID, methodID int64
	url, warnings       string
}

// planLevel reads the plan of delivering message messageID (0 for one not yet written) of
// account accountID to the first level above `above` that has contacts.
//
// It queues one delivery row per method of the level, each with its share of the message's
// payload budget (answerdesk.PayloadShare) and its method's standing warnings; the bodies
// are rendered by the dispatcher for each attempt. So the message's transaction writes a
// few hundred bytes per method whatever the templates and the message hold.
func planLevel(ctx context.Context, tx *sql.Tx, accountID, messageID int64, above int, now time.Time) (*levelPlan, error) {
	// One statement (it runs in every message's transaction, where each statement is a
	// round trip on PostgreSQL): the level, the budget already used and the methods still to
	// come, whether a level follows and after how long, on every row; the level's methods,
	// one a row, or one row of NULLs when it has none (or there is no level).
	rows, err := tx.QueryContext(ctx, `WITH lvl AS (
			SELECT coalesce(min(escalation_level), 0) AS level FROM on_call_contacts
			WHERE account_id = ? AND escalation_level > ? AND deleted_at IS NULL
		), info AS (
			SELECT lvl.level AS level,
				(SELECT coalesce(sum(body_limit), 0) FROM dispatch_deliveries WHERE message_id = ?) AS used,
				(SELECT count(*) FROM on_call_contacts c JOIN delivery_methods d ON d.contact_id = c.id
				 WHERE c.account_id = ? AND c.escalation_level >= lvl.level AND c.deleted_at IS NULL AND d.disabled_at IS NULL) AS to_come,
				(SELECT count(*) FROM on_call_contacts WHERE account_id = ? AND escalation_level > lvl.level AND deleted_at IS NULL) AS further,
				coalesce((SELECT min(escalate_after_minutes) FROM on_call_contacts
				 WHERE account_id = ? AND escalation_level = lvl.level AND deleted_at IS NULL), ?) AS min_after
			FROM lvl
		)
		SELECT info.level, info.used, info.to_come, info.further, info.min_after, c.id, d.id, d.url, d.warnings
		FROM info LEFT JOIN on_call_contacts c ON c.account_id = ? AND c.escalation_level = info.level AND info.level > 0 AND c.deleted_at IS NULL
		LEFT JOIN delivery_methods d ON d.contact_id = c.id AND d.disabled_at IS NULL
		ORDER BY c.id, d.id`,
		accountID, above, messageID, accountID, accountID, accountID, answerdesk.DefaultEscalateAfterMinutes, accountID)
	if err != nil {
		return nil, fmt.Errorf("plan escalation level above %d: %w", above, err)
	}
	defer rows.Close()
	p := &levelPlan{}
	var used int64
	var toCome, further, minAfter int
	for rows.Next() {
		var contactID, methodID *int64
		var url, warnings *string
		if err := rows.Scan(&p.level, &used, &toCome, &further, &minAfter, &contactID, &methodID, &url, &warnings); err != nil {
			return nil, fmt.Errorf("scan delivery method: %w", err)
		}
		if methodID != nil {
			p.methods = append(p.methods, planMethod{contactID: *contactID, methodID: *methodID, url: *url, warnings: *warnings})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("plan escalation level above %d: %w", above, err)
	}
	if p.level == 0 {
		return &levelPlan{}, nil
	}
	p.share = answerdesk.PayloadShare(used, toCome)
	// The level waits for the shortest escalate_after_minutes of its contacts, if a level follows.
	if further > 0 {
		at := now.Add(time.Duration(minAfter) * time.Minute).UnixMilli()
		p.next = &at
	}
	return p, nil
}

// enqueue writes the plan's deliveries of message messageID.
func (p *levelPlan) enqueue(ctx context.Context, tx *sql.Tx, accountID, messageID int64, now time.Time) error {
	nowMS := now.UnixMilli()
	const cols = 12
	values := make([]any, 0, cols*len(p.methods))
	for _, pm := range p.methods {
		values = append(values, uuid.NewString(), messageID, accountID, pm.contactID, pm.methodID, p.level, pm.url, p.share, pm.warnings, nowMS, nowMS, nowMS)
	}
	// Many rows to a statement: a level may have a thousand methods, and on PostgreSQL each
	// statement is a round trip inside the message's transaction.
	const perStatement = 100
	for len(values) > 0 {
		n := min(len(values)/cols, perStatement)
		if _, err := tx.ExecContext(ctx, `INSERT INTO dispatch_deliveries (uuid, message_id, account_id, contact_id, method_id,
			escalation_level, url, body_limit, warnings, next_attempt_at, created_at, updated_at, status)
			VALUES `+strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending'), ", n), ", "),
			values[:n*cols]...); err != nil {
			return fmt.Errorf("enqueue deliveries: %w", err)
		}
		values = values[n*cols:]
	}
	return nil
}

// escalateTo delivers m to the first level above `above` that has contacts and schedules
// the escalation after it. It changes nothing when there is no such level.
func (db *DB) escalateTo(ctx context.Context, tx *sql.Tx, m *answerdesk.Message, above int, now time.Time, count bool) error {
	p, err := planLevel(ctx, tx, m.AccountID, m.ID, above, now)
	if err != nil {
		return err
	}
	if p.level == 0 {
		_, err := tx.ExecContext(ctx, `UPDATE messages SET next_escalation_at = NULL WHERE id = ?`, m.ID)
		return err
	}
	if err := p.enqueue(ctx, tx, m.AccountID, m.ID, now); err != nil {
		return err
	}
	counter := 0
	if count {
		counter = 1
	}
	_, err = tx.ExecContext(ctx, `UPDATE messages SET escalation_level_id = ?, next_escalation_at = ?,
		escalation_counter = escalation_counter + ?, updated_at = ? WHERE id = ?`, p.level, p.next, counter, now.UnixMilli(), m.ID)
	return err
}

// EscalateDue moves unacknowledged messages past their next_escalation_at to the next level.
func (s *DispatchService) EscalateDue(ctx context.Context, now time.Time, limit int) (int, error) {
	// Most ticks have nothing to escalate: look on a reader before taking the one writer.
	var due bool
	if err := s.db.rd.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE next_escalation_at IS NOT NULL
		AND next_escalation_at <= ? AND status != 'acknowledged')`, now.UnixMilli()).Scan(&due); err != nil || !due {
		return 0, err
	}
	n := 0
	err := s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx, `SELECT id FROM messages WHERE next_escalation_at IS NOT NULL AND next_escalation_at <= ?
			AND status != 'acknowledged' ORDER BY next_escalation_at LIMIT ?`+s.db.d.claim(""), now.UnixMilli(), limit)
		if err != nil {
			return fmt.Errorf("find messages to escalate: %w", err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		admin := &answerdesk.Caller{Admin: true}
		ms := &MessageService{db: s.db}
		for _, id := range ids {
			m, err := ms.find(ctx, tx, admin, strconv.FormatInt(id, 10))
			if err != nil {
				return err
			}
			cur := 0
			if m.EscalationLevelID != nil {
				cur = int(*m.EscalationLevelID)
			}
			if err := s.db.escalateTo(ctx, tx, m, cur, now, true); err != nil {
				return fmt.Errorf("escalate message %d: %w", id, err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// ClaimDeliveries leases due deliveries, with their methods' secrets opened.
func (s *DispatchService) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*answerdesk.ClaimedDelivery, error) {
	var out []*answerdesk.ClaimedDelivery
	nowMS := now.UnixMilli()
	err := s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		out = nil
		// A contact deleted, or a method disabled by a 410, since the delivery was queued (or
		// replayed) gets nothing more: such deliveries fail here instead of being sent.
		if _, err := tx.ExecContext(ctx, `UPDATE dispatch_deliveries SET status = 'failed', lease_until = NULL, updated_at = ?
			WHERE status IN ('pending', 'sending') AND next_attempt_at <= ? AND (status = 'pending' OR lease_until <= ?)
			AND (method_id IN (SELECT id FROM delivery_methods WHERE disabled_at IS NOT NULL)
			  OR contact_id IN (SELECT id FROM on_call_contacts WHERE deleted_at IS NOT NULL))`, nowMS, nowMS, nowMS); err != nil {
			return fmt.Errorf("fail deliveries of removed methods: %w", err)
		}
		rows, err := tx.QueryContext(ctx, `SELECT d.id, d.uuid, d.message_id, d.method_id,
			(SELECT count(*) FROM dispatch_attempts a WHERE a.delivery_id = d.id AND a.id > coalesce(d.replayed_after, 0)),
			d.attempts + 1, d.url, m.payload_type, m.data, d.body_limit, c.name, acct.number, acct.name,
			coalesce(m.basic_username, ''), coalesce(m.basic_password_sealed, ''), coalesce(m.headers_sealed, ''), coalesce(m.signing_secret_sealed, '')
			FROM dispatch_deliveries d JOIN delivery_methods m ON m.id = d.method_id
			JOIN on_call_contacts c ON c.id = d.contact_id JOIN accounts acct ON acct.id = d.account_id
			WHERE d.status IN ('pending', 'sending') AND d.next_attempt_at <= ? AND (d.status = 'pending' OR d.lease_until <= ?)
			ORDER BY d.next_attempt_at LIMIT ?`+s.db.d.claim("d"), nowMS, nowMS, limit)
		if err != nil {
			return fmt.Errorf("find due deliveries: %w", err)
		}
		var ids []any
		type unreadableDelivery struct {
			id     int64
			reason string
		}
		var unreadable []unreadableDelivery
		for rows.Next() {
			d := &answerdesk.ClaimedDelivery{Merge: &answerdesk.MergeData{}}
			var data, pass, headers, secret string
			if err := rows.Scan(&d.ID, &d.UUID, &d.MessageID, &d.MethodID, &d.Attempts, &d.Claim, &d.URL, &d.PayloadType, &data, &d.BodyLimit,
				&d.Merge.ContactName, &d.Merge.AccountNumber, &d.Merge.AccountName, &d.BasicUser, &pass, &headers, &secret); err != nil {
				rows.Close()
				return fmt.Errorf("scan delivery: %w", err)
			}
			if err := json.Unmarshal([]byte(data), &d.Fields); err != nil {
				rows.Close()
				return fmt.Errorf("decode data of delivery method %d: %w", d.MethodID, err)
			}
			open := func(sealed string) (string, error) {
				if sealed == "" {
					return "", nil
				}
				box, err := s.db.secrets()
				if err != nil {
					return "", err
				}
				return box.Open(sealed)
			}
			if d.BasicPass, err = open(pass); err == nil {
				if d.SigningSecret, err = open(secret); err == nil {
					var h string
					if h, err = open(headers); err == nil && h != "" {
						err = json.Unmarshal([]byte(h), &d.Headers)
					}
				}
			}
			if err != nil {
				// One method's unreadable credentials (a replaced key file) must not stall every
				// delivery: this one fails with the reason, the others go out.
				unreadable = append(unreadable, unreadableDelivery{d.ID, err.Error()})
				continue
			}
			out = append(out, d)
			ids = append(ids, d.ID)
		}
		rows.Close()
		for _, u := range unreadable {
			if _, err := tx.ExecContext(ctx, `INSERT INTO dispatch_attempts (delivery_id, at, duration_ms, error) VALUES (?, ?, 0, ?)`,
				u.id, nowMS, "not sent: "+u.reason); err != nil {
				return fmt.Errorf("record unreadable credentials: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE dispatch_deliveries SET status = 'failed', lease_until = NULL, updated_at = ? WHERE id = ?`, nowMS, u.id); err != nil {
				return fmt.Errorf("fail delivery %d: %w", u.id, err)
			}
		}
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		// The messages, each once and all in one query: the merge variables resolve against
		// them at every attempt.
		messages, err := loadMessages(ctx, tx, out)
		if err != nil {
			return err
		}
		for _, d := range out {
			if d.Merge.Message = messages[d.MessageID]; d.Merge.Message == nil {
				return fmt.Errorf("load message %d of delivery %d: not found", d.MessageID, d.ID)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE dispatch_deliveries SET status = 'sending', lease_until = ?, attempts = attempts + 1, updated_at = ?
			WHERE id IN (`+placeholders(len(ids))+`)`, append([]any{now.Add(lease).UnixMilli(), nowMS}, ids...)...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadMessages reads the messages of deliveries by id.
func loadMessages(ctx context.Context, tx *sql.Tx, deliveries []*answerdesk.ClaimedDelivery) (map[int64]*answerdesk.Message, error) {
	var ids []any
	seen := map[int64]bool{}
	for _, d := range deliveries {
		if !seen[d.MessageID] {
			seen[d.MessageID] = true
			ids = append(ids, d.MessageID)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages m WHERE m.id IN (`+placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return nil, fmt.Errorf("load the messages of %d deliveries: %w", len(deliveries), err)
	}
	defer rows.Close()
	out := make(map[int64]*answerdesk.Message, len(ids))
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("load the messages of %d deliveries: %w", len(deliveries), err)
		}
		out[m.ID] = m
	}
	return out, rows.Err()
}

// RecordDeliveryOutcomes stores each attempt and settles its delivery; a delivered one
// marks its message delivered, and a 410 disables the method.
func (s *DispatchService) RecordDeliveryOutcomes(ctx context.Context, outcomes []answerdesk.DeliveryOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	// READ COMMITTED on PostgreSQL: every statement is conditional on the claim it settles
	// (status = 'sending' AND attempts = the claim), and marking the message delivered
	// updates the rows (counts, data version) that every new message of the account updates
	// too; under SERIALIZABLE those collisions failed whole batches of settled deliveries,
	// which were then sent again.
	//
	// Each kind of write is one statement for the whole batch (an attempt per outcome, a
	// settled delivery per outcome, a delivered message per message): under a backlog the
	// dispatcher settles 32 deliveries at a time, and a statement per delivery made three
	// round trips each on PostgreSQL, which held delivering below the rate of creates.
	return s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		var (
			attempts, settles, delivered []any
			nDelivered                   int
			seen                         = map[int64]bool{}
		)
		for _, o := range outcomes {
			d := o.Delivery
			at := o.At.UnixMilli()
			var status, errText, excerpt any
			if o.HTTPStatus != 0 {
				status = o.HTTPStatus
			}
			if o.Error != "" {
				errText = truncateUTF8(o.Error, answerdesk.MaxAttemptErrorBytes)
			}
			if o.Excerpt != "" {
				excerpt = truncateUTF8(o.Excerpt, answerdesk.MaxAttemptExcerptBytes)
			}
			attempts = append(attempts, d.ID, at, status, o.Duration.Milliseconds(), errText, excerpt)
			next, status := at, o.Status
			if o.Status == answerdesk.DispatchPending {
				next = o.RetryAt.UnixMilli()
				var gone bool
				if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM on_call_contacts WHERE id = (SELECT contact_id FROM dispatch_deliveries WHERE id = ?) AND deleted_at IS NOT NULL)`,
					d.ID).Scan(&gone); err != nil {
					return fmt.Errorf("check contact of delivery %d: %w", d.ID, err)
				}
				if gone {
					status = answerdesk.DispatchFailed // its contact was deleted during the attempt
				}
			}
			warnings := o.Warnings
			if warnings == nil {
				warnings = []string{}
			}
			w, err := json.Marshal(warnings)
			if err != nil {
				return fmt.Errorf("encode warnings of delivery %d: %w", d.ID, err)
			}
			settles = append(settles, d.ID, status, next, at, string(w), d.Claim)
			if o.Status == answerdesk.DispatchDelivered && !seen[d.MessageID] {
				seen[d.MessageID] = true // the first delivered of the batch names the contact
				delivered = append(delivered, d.MessageID, d.ID, at)
				nDelivered++
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO dispatch_attempts (delivery_id, at, http_status, duration_ms, error, response_excerpt)
			VALUES `+valueRows(len(outcomes), 6), attempts...); err != nil {
			return fmt.Errorf("record %d attempts: %w", len(outcomes), err)
		}
		// Each settle is conditional on its claim: a delivery whose lease ran out and was
		// claimed again elsewhere is left to that claim.
		if _, err := tx.ExecContext(ctx, `WITH v (id, status, next, at, warnings, claim) AS (VALUES `+
			typedValueRows(len(outcomes), "BIGINT", "TEXT", "BIGINT", "BIGINT", "TEXT", "BIGINT")+`)
			UPDATE dispatch_deliveries SET status = v.status, next_attempt_at = v.next, lease_until = NULL, updated_at = v.at, warnings = v.warnings
			FROM v WHERE dispatch_deliveries.id = v.id AND dispatch_deliveries.status = 'sending' AND dispatch_deliveries.attempts = v.claim`,
			settles...); err != nil {
			return fmt.Errorf("settle %d deliveries: %w", len(outcomes), err)
		}
		if nDelivered > 0 {
			if _, err := tx.ExecContext(ctx, `WITH v (id, delivery, at) AS (VALUES `+typedValueRows(nDelivered, "BIGINT", "BIGINT", "BIGINT")+`)
				UPDATE messages SET status = 'delivered', delivered_at = coalesce(messages.delivered_at, v.at),
				delivered_to = coalesce(messages.delivered_to, (SELECT contact_id FROM dispatch_deliveries WHERE id = v.delivery)), updated_at = v.at
				FROM v WHERE messages.id = v.id AND messages.status = 'new'`, delivered...); err != nil {
				return fmt.Errorf("mark %d messages delivered: %w", nDelivered, err)
			}
		}
		for _, o := range outcomes {
			if o.DisableMethod == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE delivery_methods SET disabled_at = ?, disabled_reason = ? WHERE id = ? AND disabled_at IS NULL`,
				o.At.UnixMilli(), o.DisableMethod, o.Delivery.MethodID); err != nil {
				return fmt.Errorf("disable delivery method %d: %w", o.Delivery.MethodID, err)
			}
		}
		return nil
	})
}

// valueRows is n rows of cols placeholders for a VALUES list: (?, ?), (?, ?).
func valueRows(n, cols int) string {
	row := "(" + placeholders(cols) + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

// typedValueRows is valueRows with each placeholder cast to its column's type: PostgreSQL
// cannot infer a parameter's type inside a VALUES list used as a table.
func typedValueRows(n int, types ...string) string {
	cells := make([]string, len(types))
	for i, t := range types {
		cells[i] = "CAST(? AS " + t + ")"
	}
	row := "(" + strings.Join(cells, ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

// ReleaseDeliveries returns deliveries whose attempt never got an answer, without counting it.
func (s *DispatchService) ReleaseDeliveries(ctx context.Context, ds []*answerdesk.ClaimedDelivery, now time.Time) error {
	if len(ds) == 0 {
		return nil
	}
	return s.db.txReadCommitted(ctx, func(tx *sql.Tx) error { // conditional on the claim, as above
		for _, d := range ds {
			if _, err := tx.ExecContext(ctx, `UPDATE dispatch_deliveries SET status = 'pending', lease_until = NULL, next_attempt_at = ?,
				updated_at = ? WHERE id = ? AND status = 'sending' AND attempts = ?`,
				now.UnixMilli(), now.UnixMilli(), d.ID, d.Claim); err != nil {
				return fmt.Errorf("release delivery %d: %w", d.ID, err)
			}
		}
		return nil
	})
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
