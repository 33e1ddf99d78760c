package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// ToDoService implements answerdesk.ToDoService and answerdesk.ToDoQueue.
type ToDoService struct {
	db *DB
	// AIOutboundCall enables ai_outbound_call To Dos (--feature ai-outbound-call).
	AIOutboundCall bool
	// OnCreate, when set, is called after a To Do is stored, so the scheduler can start an
	// immediate one without waiting for its next poll.
	OnCreate func()
}

// NewToDoService returns the To Do service over db.
func NewToDoService(db *DB) *ToDoService { return &ToDoService{db: db} }

var (
	_ answerdesk.ToDoService = (*ToDoService)(nil)
	_ answerdesk.ToDoQueue   = (*ToDoService)(nil)
)

// digits10 is a North American number without +1, the form `from` is compared in.
func digits10(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	d := b.String()
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	return d
}

// CreateToDo validates the To Do against its account and stores it with its schedule.
func (s *ToDoService) CreateToDo(ctx context.Context, c *answerdesk.Caller, t *answerdesk.ToDoCreate) (*answerdesk.ToDo, error) {
	if err := c.RequireScope(answerdesk.ScopeTodosWrite); err != nil {
		return nil, err
	}
	acct, err := s.db.accountForCreate(ctx, c, t.AccountNumber)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(acct.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("account %s time zone %q: %w", acct.Number, acct.TimeZone, err)
	}
	var v answerdesk.ValidationErrors
	refs, err := s.accountRefs(ctx, acct, t, &v)
	if err != nil {
		return nil, err
	}
	phoneID, domainID, assistantID := refs.phoneID, refs.domainID, refs.assistantID
	now := s.db.now()
	plan, planErr := answerdesk.NewPlan(t.Schedule, now, loc)
	var pe *answerdesk.Error
	if errors.As(planErr, &pe) {
		for _, f := range pe.Fields {
			v.Add(f.Field, f.Message)
		}
	} else if planErr != nil {
		return nil, planErr
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	name := t.Name
	if name == "" {
		name = answerdesk.NewTime(now).String()
	}
	rule, _ := json.Marshal(plan.Rule)
	times, _ := json.Marshal(plan.Times)
	var next *int64
	if at, ok := plan.First(); ok {
		ms := at.UnixMilli()
		next = &ms
	}
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var id int64
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO to_dos (account_id, phone_id, name, delivery_type, contact,
			message_text, instructions, from_number, from_email, sender_name, subject, sending_domain_id,
			ai_assistant_id, created_by, created_at, updated_at) VALUES (`+placeholders(16)+`) RETURNING id`,
			acct.ID, phoneID, name, t.DeliveryType, nullable(t.Contact), nullable(t.MessageText), nullable(t.Instructions),
			nullable(t.From), nullable(t.FromEmail), nullable(t.SenderName), nullable(t.SubjectLine), domainID,
			assistantID, c.UserID, now.UnixMilli(), now.UnixMilli()).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert to-do: %w", err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO schedules (schedulable_type, schedulable_id, rule, times, starts_at,
			next_occurrence, created_at, updated_at) VALUES ('ToDo', ?, ?, ?, ?, ?, ?, ?)`,
			id, string(rule), string(times), plan.Start().UnixMilli(), next, now.UnixMilli(), now.UnixMilli())
		if err != nil {
			return fmt.Errorf("insert schedule: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.OnCreate != nil {
		s.OnCreate()
	}
	return s.find(ctx, c, strconv.FormatInt(id, 10))
}

// toDoRefs are what a To Do points at on its account: the number it runs against, the
// sending domain of an email and the AI assistant of an AI call.
type toDoRefs struct {
	phoneID, domainID *int64
	assistantID       *string
}

// DeliveryTypeOffered refuses ai_outbound_call unless the server runs with --feature
// ai-outbound-call; every other value is for validation to judge.
func (s *ToDoService) DeliveryTypeOffered(deliveryType string) error {
	if deliveryType == answerdesk.DeliveryAIOutboundCall && !s.AIOutboundCall {
		return &answerdesk.Error{Code: answerdesk.EUNAVAILABLE, Message: "ai_outbound_call is not released on this server",
			Hint:   "use delivery_type call, or start the server with --feature ai-outbound-call",
			Fields: []answerdesk.FieldError{{Field: "delivery_type", Message: "ai_outbound_call is not available"}}}
	}
	return nil
}

// accountRefs checks t against its account (SMS numbers, sending domains, blacklist,
// assistant), adding field errors to v, and returns what the To Do points at. Create and
// update both call it, so an updated To Do passes the same checks as a new one.
func (s *ToDoService) accountRefs(ctx context.Context, acct *answerdesk.Account, t *answerdesk.ToDoCreate, v *answerdesk.ValidationErrors) (toDoRefs, error) {
	var r toDoRefs
	var err error
	switch t.DeliveryType {
	case answerdesk.DeliverySMS:
		r.phoneID, err = s.smsNumber(ctx, acct.ID, t.From)
		if err != nil {
			return r, err
		}
		if r.phoneID == nil {
			v.Add("from", "is not an SMS-enabled number of account "+acct.Number)
		}
	case answerdesk.DeliveryEmail:
		if r.domainID, err = s.checkFromEmail(ctx, v, acct.ID, t.FromEmail); err != nil {
			return r, err
		}
	case answerdesk.DeliveryAIOutboundCall:
		if err := s.DeliveryTypeOffered(t.DeliveryType); err != nil {
			return r, err
		}
		err := s.db.rd.QueryRowContext(ctx, `SELECT id, ai_assistant_id FROM phone_numbers
			WHERE account_id = ? AND ai_assistant_id IS NOT NULL ORDER BY id LIMIT 1`, acct.ID).Scan(&r.phoneID, &r.assistantID)
		if errors.Is(err, sql.ErrNoRows) {
			v.Add("delivery_type", "ai_outbound_call needs an AI assistant attached to a number of account "+acct.Number)
		} else if err != nil {
			return r, fmt.Errorf("find AI assistant of account %s: %w", acct.Number, err)
		}
	}
	if r.phoneID == nil && t.DeliveryType != answerdesk.DeliverySMS {
		// Visibility follows the account's phones; a To Do runs against the account's main number.
		err := s.db.rd.QueryRowContext(ctx, `SELECT id FROM phone_numbers WHERE account_id = ? ORDER BY id LIMIT 1`, acct.ID).Scan(&r.phoneID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return r, fmt.Errorf("find number of account %s: %w", acct.Number, err)
		}
	}
	return r, nil
}

// smsNumber returns the id of the account's SMS-enabled number equal to from (compared
// without +1), or nil.
func (s *ToDoService) smsNumber(ctx context.Context, accountID int64, from string) (*int64, error) {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT id, number FROM phone_numbers WHERE account_id = ? AND sms_enabled = 1`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list SMS numbers: %w", err)
	}
	defer rows.Close()
	want := digits10(from)
	for rows.Next() {
		var id int64
		var number string
		if err := rows.Scan(&id, &number); err != nil {
			return nil, fmt.Errorf("scan SMS number: %w", err)
		}
		if digits10(number) == want && want != "" {
			return &id, nil
		}
	}
	return nil, rows.Err()
}

// checkFromEmail checks that from_email is not on the account's blacklist and is on one of its
// authenticated sending domains, and returns that domain's id.
func (s *ToDoService) checkFromEmail(ctx context.Context, v *answerdesk.ValidationErrors, accountID int64, from string) (*int64, error) {
	var n int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM email_blacklist WHERE account_id = ? AND email = ?`, accountID, from).Scan(&n); err != nil {
		return nil, fmt.Errorf("check blacklist: %w", err)
	}
	if n > 0 {
		v.Add("from_email", "is blacklisted and cannot send email")
		return nil, nil
	}
	domain := from[strings.LastIndex(from, "@")+1:]
	var id int64
	err := s.db.rd.QueryRowContext(ctx, `SELECT id FROM sending_domains WHERE account_id = ? AND domain = ?`, accountID, domain).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		v.Add("from_email", "must be on an authenticated sending domain of the account ("+domain+" is not)")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check sending domain: %w", err)
	}
	return &id, nil
}

const toDoColumns = `t.id, a.number, a.name, t.account_id, t.name, t.phone_id, p.number, t.delivery_type, t.contact,
	t.message_text, t.instructions, t.from_number, t.from_email, t.sender_name, t.subject, t.sending_domain_id,
	t.ai_assistant_id, t.is_sending, t.state, t.created_at, t.updated_at,
	s.id, s.rule, s.times, s.starts_at, s.previous_occurrence, s.next_occurrence, s.created_at, s.updated_at,
	la.status, la.channel, la.at, la.error`

// toDoFrom joins a To Do with its account, number, schedule and latest attempt.
const toDoFrom = ` FROM to_dos t
	JOIN accounts a ON a.id = t.account_id
	JOIN schedules s ON s.schedulable_type = 'ToDo' AND s.schedulable_id = t.id
	LEFT JOIN phone_numbers p ON p.id = t.phone_id
	LEFT JOIN to_do_attempts la ON la.id = (SELECT max(id) FROM to_do_attempts WHERE to_do_id = t.id)`

func scanToDo(sc scanner) (*answerdesk.ToDo, error) {
	var t answerdesk.ToDo
	var phone *string
	var created, updated, sCreated, sUpdated, startsAt int64
	var prev, next, laAt *int64
	var rule, times string
	var laStatus, laChannel, laError *string
	err := sc.Scan(&t.ID, &t.AccountNumber, &t.AccountName, &t.AccountID, &t.Name, &t.PhoneID, &phone, &t.DeliveryType, &t.Contact,
		&t.MessageText, &t.Instructions, &t.From, &t.FromEmail, &t.SenderName, &t.Subject, &t.ProviderAuthenticatedDomainID,
		&t.AIAssistantID, &t.IsSending, &t.State, &created, &updated,
		&t.Schedule.ID, &rule, &times, &startsAt, &prev, &next, &sCreated, &sUpdated,
		&laStatus, &laChannel, &laAt, &laError)
	if err != nil {
		return nil, err
	}
	if phone != nil {
		t.PhoneNumber = *phone
	}
	t.CreatedAt, t.UpdatedAt = fromMS(created), fromMS(updated)
	s := &t.Schedule
	s.SchedulableID, s.SchedulableType = t.ID, "ToDo"
	s.PreviousOccurrence, s.NextOccurrence = msPtr(prev), msPtr(next)
	s.CreatedAt, s.UpdatedAt = fromMS(sCreated), fromMS(sUpdated)
	if err := json.Unmarshal([]byte(rule), &s.Rule); err != nil {
		return nil, fmt.Errorf("decode schedule rule of to-do %d: %w", t.ID, err)
	}
	if err := json.Unmarshal([]byte(times), &s.Times); err != nil {
		return nil, fmt.Errorf("decode schedule times of to-do %d: %w", t.ID, err)
	}
	t.Times = s.Times
	s.Upcoming = []answerdesk.Time{}
	if next != nil && t.State == answerdesk.ToDoActive {
		plan, err := answerdesk.PlanFromRule(s.Rule, s.Times, time.UnixMilli(startsAt))
		if err != nil {
			return nil, fmt.Errorf("schedule of to-do %d: %w", t.ID, err)
		}
		for _, at := range plan.Upcoming(time.UnixMilli(*next), answerdesk.UpcomingOccurrences) {
			s.Upcoming = append(s.Upcoming, answerdesk.NewTime(at))
		}
	}
	if laStatus != nil {
		status := *laStatus
		if status == answerdesk.AttemptRetry {
			status = answerdesk.DeliveryFailed // a failed attempt that will be retried
		}
		t.LastDelivery = &answerdesk.LastDelivery{Status: status, Channel: *laChannel, At: fromMS(*laAt), Error: laError}
	}
	return &t, nil
}

// FindToDos returns one page of the caller's To Dos, newest first.
func (s *ToDoService) FindToDos(ctx context.Context, c *answerdesk.Caller, f answerdesk.ToDoFilter) ([]*answerdesk.ToDo, answerdesk.PageMeta, error) {
	if err := c.RequireScope(answerdesk.ScopeTodosRead); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	p := f.Paging
	vis, args := visibility(c, "account_id")
	if f.State != "" {
		vis += " AND state = ?"
		args = append(args, f.State)
	}
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM to_dos WHERE `+vis, args...).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count to-dos: %w", err)
	}
	meta := answerdesk.NewPageMeta(p.Page, p.PageSize, total)
	list := []*answerdesk.ToDo{}
	if p.Offset() >= total {
		return list, meta, nil
	}
	rows, err := s.db.rd.QueryContext(ctx, `SELECT `+toDoColumns+toDoFrom+` WHERE t.id IN (
		SELECT id FROM to_dos WHERE `+vis+` ORDER BY created_at DESC, id DESC `+pageClause(p)+`)
		ORDER BY t.created_at DESC, t.id DESC`, append(args, p.Offset())...)
	if err != nil {
		return nil, meta, fmt.Errorf("list to-dos: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanToDo(rows)
		if err != nil {
			return nil, meta, fmt.Errorf("scan to-do: %w", err)
		}
		list = append(list, t)
	}
	return list, meta, rows.Err()
}

// FindToDo returns one To Do the caller can see.
func (s *ToDoService) FindToDo(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.ToDo, error) {
	if err := c.RequireScope(answerdesk.ScopeTodosRead); err != nil {
		return nil, err
	}
	return s.find(ctx, c, id)
}

// find is FindToDo without the scope check, for CreateToDo's answer: a caller who may
// create To Dos gets the one they created back, even without todos:read.
func (s *ToDoService) find(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.ToDo, error) {
	n, ok := answerdesk.ParseID(id)
	if !ok {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no to-do %s", answerdesk.Quote(id))
	}
	vis, args := visibility(c, "t.account_id")
	t, err := scanToDo(s.db.rd.QueryRowContext(ctx, `SELECT `+toDoColumns+toDoFrom+` WHERE t.id = ? AND `+vis, append([]any{n}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no to-do %s", answerdesk.Quote(id))
	}
	if err != nil {
		return nil, fmt.Errorf("load to-do %d: %w", n, err)
	}
	return t, nil
}
