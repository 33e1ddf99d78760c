package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/answerdesk/answerdesk"
)

// DispatchService implements answerdesk.DispatchService (this file: on-call contacts, the
// deliveries list, replays) and answerdesk.DispatchQueue (dispatch_queue.go).
type DispatchService struct {
	db *DB
	// OnChange, when set, is called when deliveries become due (a replay), so the
	// dispatcher starts at once.
	OnChange func()
	// ReplayLimiter counts replays per account (answerdesk.ReplayLimitKey), allowing
	// answerdesk.ReplayRateLimit per answerdesk.ReplayRateWindow; nil allows every replay.
	ReplayLimiter answerdesk.RateLimiter
}

// NewDispatchService returns the dispatch service over db.
func NewDispatchService(db *DB) *DispatchService { return &DispatchService{db: db} }

var (
	_ answerdesk.DispatchService = (*DispatchService)(nil)
	_ answerdesk.DispatchQueue   = (*DispatchService)(nil)
)

// writeOnlyValue stands in for a configured header value in responses.
const writeOnlyValue = "[write-only]"

func (db *DB) secrets() (*answerdesk.SecretBox, error) {
	if db.Secrets == nil {
		return nil, errors.New("store: no secret box configured")
	}
	return db.Secrets, nil
}

// CreateOnCallContact stores a contact and its delivery methods, sealing their secrets.
func (s *DispatchService) CreateOnCallContact(ctx context.Context, c *answerdesk.Caller, in *answerdesk.OnCallContactCreate) (*answerdesk.OnCallContact, error) {
	if err := c.RequireScope(answerdesk.ScopeDispatchWrite); err != nil {
		return nil, err
	}
	acct, err := s.db.accountForCreate(ctx, c, in.AccountNumber)
	if err != nil {
		return nil, err
	}
	box := s.db.Secrets
	for _, m := range in.Methods {
		if box == nil && (m.BasicPass != "" || len(m.Headers) > 0 || m.SigningSecret != "") {
			return nil, errors.New("store: no secret box configured to seal delivery method credentials")
		}
	}
	now := s.db.now().UnixMilli()
	var id int64
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		// Counted in the writing transaction, so that concurrent creates cannot both pass.
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM on_call_contacts WHERE account_id = ? AND deleted_at IS NULL`,
			acct.ID).Scan(&n); err != nil {
			return fmt.Errorf("count on-call contacts of account %d: %w", acct.ID, err)
		}
		if n >= answerdesk.MaxOnCallContactsPerAccount {
			return answerdesk.FieldErr("account_number", fmt.Sprintf("already has %d on-call contacts, the most an account may have; delete one first",
				answerdesk.MaxOnCallContactsPerAccount))
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO on_call_contacts (account_id, name, escalation_level, escalate_after_minutes, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`, acct.ID, in.Name, in.EscalationLevel, in.EscalateAfterMinutes, now).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert on-call contact: %w", err)
		}
		for _, m := range in.Methods {
			data, _ := json.Marshal(m.Data)
			var user, pass, headers, secret any
			if m.BasicUser != "" {
				user, pass = m.BasicUser, box.Seal(m.BasicPass)
			}
			names := make([]string, 0, len(m.Headers))
			if len(m.Headers) > 0 {
				h, _ := json.Marshal(m.Headers)
				headers = box.Seal(string(h))
				for name := range m.Headers {
					names = append(names, name)
				}
			}
			if m.SigningSecret != "" {
				secret = box.Seal(m.SigningSecret)
			}
			namesJSON, _ := json.Marshal(names)
			warnings := answerdesk.MethodWarnings(m.Data)
			if warnings == nil {
				warnings = []string{}
			}
			warningsJSON, _ := json.Marshal(warnings)
			if _, err := tx.ExecContext(ctx, `INSERT INTO delivery_methods (contact_id, type, url, payload_type, data,
				basic_username, basic_password_sealed, headers_sealed, header_names, signing_secret_sealed, warnings, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, m.Type, m.URL, m.PayloadType, string(data),
				user, pass, headers, string(namesJSON), secret, string(warningsJSON), now); err != nil {
				return fmt.Errorf("insert delivery method: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.findContact(ctx, c, id)
}

func (s *DispatchService) contacts(ctx context.Context, where string, args ...any) ([]*answerdesk.OnCallContact, error) {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT c.id, a.number, c.account_id, c.name, c.escalation_level, c.escalate_after_minutes, c.created_at,
		m.id, m.type, m.url, m.payload_type, m.data, m.basic_username, m.header_names, m.signing_secret_sealed IS NOT NULL, m.disabled_at, m.disabled_reason
		FROM on_call_contacts c JOIN accounts a ON a.id = c.account_id LEFT JOIN delivery_methods m ON m.contact_id = c.id
		WHERE c.deleted_at IS NULL AND `+where+` ORDER BY c.escalation_level, c.id, m.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list on-call contacts: %w", err)
	}
	defer rows.Close()
	var list []*answerdesk.OnCallContact
	for rows.Next() {
		var ct answerdesk.OnCallContact
		var created int64
		var mID *int64
		var mType, mURL, mPayload, mData, mNames *string
		var mUser, mReason *string
		var mSecret *bool
		var mDisabled *int64
		if err := rows.Scan(&ct.ID, &ct.AccountNumber, &ct.AccountID, &ct.Name, &ct.EscalationLevel, &ct.EscalateAfterMinutes, &created,
			&mID, &mType, &mURL, &mPayload, &mData, &mUser, &mNames, &mSecret, &mDisabled, &mReason); err != nil {
			return nil, fmt.Errorf("scan on-call contact: %w", err)
		}
		if len(list) == 0 || list[len(list)-1].ID != ct.ID {
			ct.CreatedAt = fromMS(created)
			ct.DeliveryMethods = []answerdesk.DeliveryMethod{}
			list = append(list, &ct)
		}
		if mID == nil {
			continue
		}
		m := answerdesk.DeliveryMethod{ID: *mID, Type: *mType, URL: *mURL, PayloadType: *mPayload, SigningSecretSet: *mSecret,
			DisabledAt: msPtr(mDisabled), DisabledReason: mReason, Headers: map[string]string{}}
		if err := json.Unmarshal([]byte(*mData), &m.Data); err != nil {
			return nil, fmt.Errorf("decode data of delivery method %d: %w", m.ID, err)
		}
		var names []string
		if err := json.Unmarshal([]byte(*mNames), &names); err != nil {
			return nil, fmt.Errorf("decode headers of delivery method %d: %w", m.ID, err)
		}
		for _, n := range names {
			m.Headers[n] = writeOnlyValue
		}
		if mUser != nil {
			m.BasicAuth = &answerdesk.BasicAuthView{Username: *mUser}
		}
		last := list[len(list)-1]
		last.DeliveryMethods = append(last.DeliveryMethods, m)
	}
	return list, rows.Err()
}

func (s *DispatchService) findContact(ctx context.Context, c *answerdesk.Caller, id int64) (*answerdesk.OnCallContact, error) {
	vis, args := visibility(c, "c.account_id")
	list, err := s.contacts(ctx, "c.id = ? AND "+vis, append([]any{id}, args...)...)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no on-call contact %d", id)
	}
	return list[0], nil
}

// FindOnCallContacts returns one page of the caller's contacts, by escalation level.
func (s *DispatchService) FindOnCallContacts(ctx context.Context, c *answerdesk.Caller, p answerdesk.Paging) ([]*answerdesk.OnCallContact, answerdesk.PageMeta, error) {
	if err := c.RequireScope(answerdesk.ScopeDispatchRead); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	vis, args := visibility(c, "account_id")
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM on_call_contacts WHERE deleted_at IS NULL AND `+vis, args...).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count on-call contacts: %w", err)
	}
	meta := answerdesk.NewPageMeta(p.Page, p.PageSize, total)
	cvis, cargs := visibility(c, "account_id")
	list, err := s.contacts(ctx, `c.id IN (SELECT id FROM on_call_contacts WHERE deleted_at IS NULL AND `+cvis+`
		ORDER BY escalation_level, id `+pageClause(p)+`)`, append(cargs, p.Offset())...)
	if list == nil {
		list = []*answerdesk.OnCallContact{}
	}
	return list, meta, err
}

// DeleteOnCallContact removes a contact (its past deliveries stay in the log) and stops its
// pending deliveries.
func (s *DispatchService) DeleteOnCallContact(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.OnCallContact, error) {
	if err := c.RequireScope(answerdesk.ScopeDispatchWrite); err != nil {
		return nil, err
	}
	n, ok := answerdesk.ParseID(id)
	if !ok {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no on-call contact %s", answerdesk.Quote(id))
	}
	ct, err := s.findContact(ctx, c, n)
	if err != nil {
		return nil, err
	}
	now := s.db.now().UnixMilli()
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE on_call_contacts SET deleted_at = ? WHERE id = ?`, now, n); err != nil {
			return fmt.Errorf("delete on-call contact %d: %w", n, err)
		}
		// Deliveries in flight fail when their attempt is recorded or claimed again.
		_, err := tx.ExecContext(ctx, `UPDATE dispatch_deliveries SET status = 'failed', lease_until = NULL, updated_at = ?
			WHERE contact_id = ? AND status = 'pending'`, now, n)
		return err
	})
	return ct, err
}

const deliveryColumns = `d.id, d.uuid, d.message_id, d.contact_id, d.method_id, d.escalation_level, d.url, d.status,
	d.next_attempt_at, d.warnings, d.created_at, d.updated_at`

// FindDispatchDeliveries returns one page of the caller's deliveries, newest first, with
// their attempts.
func (s *DispatchService) FindDispatchDeliveries(ctx context.Context, c *answerdesk.Caller, q answerdesk.DeliveryQuery) ([]*answerdesk.DispatchDelivery, answerdesk.PageMeta, error) {
	if err := c.RequireScope(answerdesk.ScopeDispatchRead); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	cond, args := visibility(c, "account_id")
	conds := []string{cond}
	if q.MessageID != 0 {
		conds, args = append(conds, "message_id = ?"), append(args, q.MessageID)
	}
	switch q.Status {
	case answerdesk.DispatchPending:
		conds = append(conds, "status IN ('pending', 'sending')")
	case "":
	default:
		conds, args = append(conds, "status = ?"), append(args, q.Status)
	}
	where := strings.Join(conds, " AND ")
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM dispatch_deliveries WHERE `+where, args...).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count deliveries: %w", err)
	}
	meta := answerdesk.NewPageMeta(q.Page, q.PageSize, total)
	list, err := s.deliveries(ctx, `d.id IN (SELECT id FROM dispatch_deliveries WHERE `+where+` ORDER BY id DESC `+pageClause(q.Paging)+`)`,
		append(args, q.Offset())...)
	return list, meta, err
}

func (s *DispatchService) deliveries(ctx context.Context, where string, args ...any) ([]*answerdesk.DispatchDelivery, error) {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM dispatch_deliveries d WHERE `+where+` ORDER BY d.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	list := []*answerdesk.DispatchDelivery{}
	byID := map[int64]*answerdesk.DispatchDelivery{}
	var ids []any
	for rows.Next() {
		var d answerdesk.DispatchDelivery
		var next *int64
		var created, updated int64
		var warnings string
		if err := rows.Scan(&d.ID, &d.UUID, &d.MessageID, &d.ContactID, &d.MethodID, &d.EscalationLevel, &d.URL, &d.Status,
			&next, &warnings, &created, &updated); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan delivery: %w", err)
		}
		if d.Status == "sending" {
			d.Status = answerdesk.DispatchPending
		}
		if d.Status == answerdesk.DispatchPending {
			d.NextAttemptAt = msPtr(next)
		}
		d.CreatedAt, d.UpdatedAt = fromMS(created), fromMS(updated)
		if err := json.Unmarshal([]byte(warnings), &d.Warnings); err != nil {
			rows.Close()
			return nil, fmt.Errorf("decode warnings of delivery %d: %w", d.ID, err)
		}
		d.Attempts = []answerdesk.DispatchAttempt{}
		list = append(list, &d)
		byID[d.ID] = &d
		ids = append(ids, d.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return list, err
	}
	arows, err := s.db.rd.QueryContext(ctx, `SELECT delivery_id, at, http_status, duration_ms, error, response_excerpt
		FROM dispatch_attempts WHERE delivery_id IN (`+placeholders(len(ids))+`) ORDER BY id`, ids...)
	if err != nil {
		return nil, fmt.Errorf("list attempts: %w", err)
	}
	defer arows.Close()
	for arows.Next() {
		var id, at int64
		var a answerdesk.DispatchAttempt
		if err := arows.Scan(&id, &at, &a.HTTPStatus, &a.DurationMS, &a.Error, &a.ResponseExcerpt); err != nil {
			return nil, fmt.Errorf("scan attempt: %w", err)
		}
		a.At = fromMS(at)
		byID[id].Attempts = append(byID[id].Attempts, a)
	}
	return list, arows.Err()
}

// ReplayDispatchDelivery sends a delivery again now, with a fresh set of retries.
func (s *DispatchService) ReplayDispatchDelivery(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.DispatchDelivery, error) {
	if err := c.RequireScope(answerdesk.ScopeDispatchWrite); err != nil {
		return nil, err
	}
	n, ok := answerdesk.ParseID(id)
	if !ok {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no delivery %s", answerdesk.Quote(id))
	}
	vis, args := visibility(c, "account_id")
	// Found and counted before the write: an unknown or invisible delivery spends nothing, and
	// the limiter (which may write to a shared store) is never called inside the one writer.
	var account int64
	var status string
	err := s.db.rd.QueryRowContext(ctx, `SELECT account_id, status FROM dispatch_deliveries WHERE id = ? AND `+vis,
		append([]any{n}, args...)...).Scan(&account, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no delivery %s", answerdesk.Quote(id))
	}
	if err != nil {
		return nil, fmt.Errorf("load delivery %d: %w", n, err)
	}
	if status == "sending" {
		return nil, answerdesk.Errorf(answerdesk.ECONFLICT, "delivery %d is being sent right now; replay it once the attempt is recorded", n)
	}
	if s.ReplayLimiter != nil {
		d, err := s.ReplayLimiter.Take(ctx, answerdesk.ReplayLimitKey(account), 1, s.db.now())
		if err != nil {
			return nil, fmt.Errorf("count replays of account %d: %w", account, err)
		}
		if !d.Allowed {
			return nil, answerdesk.ReplayLimited(d)
		}
	}
	now := s.db.now().UnixMilli()
	var found bool
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM dispatch_deliveries WHERE id = ? AND `+vis, append([]any{n}, args...)...).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("load delivery %d: %w", n, err)
		}
		found = true
		if status == "sending" {
			return answerdesk.Errorf(answerdesk.ECONFLICT, "delivery %d is being sent right now; replay it once the attempt is recorded", n)
		}
		// A replay starts a fresh set of retries: attempts before it no longer count.
		_, err = tx.ExecContext(ctx, `UPDATE dispatch_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ?,
			replayed_after = (SELECT coalesce(max(id), 0) FROM dispatch_attempts WHERE delivery_id = ?) WHERE id = ?`, now, now, n, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no delivery %s", answerdesk.Quote(id))
	}
	if s.OnChange != nil {
		s.OnChange()
	}
	list, err := s.deliveries(ctx, "d.id = ?", n)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return list[0], nil
}
