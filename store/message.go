package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/google/uuid"
)

// MessageService implements answerdesk.MessageService.
type MessageService struct {
	db *DB
	// OnCreate, when set, is called after a message and its deliveries are stored, so the
	// dispatcher sends them at once instead of at its next poll.
	OnCreate func()
}

// NewMessageService returns the message service over db.
func NewMessageService(db *DB) *MessageService { return &MessageService{db: db} }

var _ answerdesk.MessageService = (*MessageService)(nil)

// messageRow is how a message is read: its columns are Message's fields (rowLayout).
var messageRow = layoutOf[answerdesk.Message]()

// messageColumns is the columns of a message row, for the alias m.
var messageColumns = messageRow.list("m")

type scanner interface{ Scan(dest ...any) error }

func scanMessage(s scanner) (*answerdesk.Message, error) {
	var m answerdesk.Message
	if err := s.Scan(messageRow.targets(&m)...); err != nil {
		return nil, err
	}
	return &m, nil
}

// visibility returns the SQL condition limiting rows of alias to the caller's accounts.
func visibility(c *answerdesk.Caller, column string) (string, []any) {
	if c.Admin {
		return "1 = 1", nil
	}
	if len(c.AccountIDs) == 0 {
		return "1 = 0", nil
	}
	args := make([]any, len(c.AccountIDs))
	for i, id := range c.AccountIDs {
		args[i] = id
	}
	if len(args) == 1 {
		return column + " = ?", args
	}
	return column + " IN (" + placeholders(len(args)) + ")", args
}

// messageWhere builds the WHERE clause of a message list.
func messageWhere(d dialect, c *answerdesk.Caller, q answerdesk.MessageQuery) (string, []any) {
	return messageConds(d, c, q, "created_at", q.Since, q.Until)
}

// messageConds builds the conditions of q over a table with the message filter columns,
// bounding timeColumn by [since, until) where q has date bounds.
func messageConds(d dialect, c *answerdesk.Caller, q answerdesk.MessageQuery, timeColumn string, since, until int64) (string, []any) {
	cond, args := visibility(c, "account_id")
	conds := []string{cond}
	if q.Origin != "" {
		conds, args = append(conds, "origin = ?"), append(args, q.Origin)
	}
	if q.Status != "" {
		conds, args = append(conds, "status = ?"), append(args, q.Status)
	}
	if q.Since != 0 {
		conds, args = append(conds, timeColumn+" >= ?"), append(args, since)
	}
	if q.Until != 0 {
		conds, args = append(conds, timeColumn+" < ?"), append(args, until)
	}
	if q.Read != nil {
		conds, args = append(conds, "read = ?"), append(args, *q.Read)
	}
	if q.Searching() && d.postgres { // SQLite's is messageSource
		cond, wargs := d.matchWords("id", q.Words, q.Phones, q.CallerID)
		conds, args = append(conds, cond), append(args, wargs...)
	}
	return strings.Join(conds, " AND "), args
}

// messageListSQL returns the page query: the ids of the page are found in the index alone
// (a deep OFFSET then skips index entries, not table rows), and only those rows are read.
// The rows come back unordered: sorting 50 rows in Go is cheaper than SQLite copying every
// column through a temporary B-tree (query sorts them).
func messageListSQL(from, where string, p answerdesk.Paging) string {
	return `SELECT ` + messageColumns + ` FROM messages m JOIN (
		SELECT id FROM ` + from + ` WHERE ` + where + ` ORDER BY created_at DESC, id DESC ` + pageClause(p) + `
	) p ON p.id = m.id`
}

// messageSearchSQL is messageListSQL for a search, each row with the number of messages
// that match (a window over the matches, counted before the page is cut): the index is
// searched once for the page and its meta, not once for each (dialect.countsInSearch).
func messageSearchSQL(from, where string, p answerdesk.Paging) string {
	return `SELECT ` + messageColumns + `, p.total FROM messages m JOIN (
		SELECT id, count(*) OVER () AS total FROM ` + from + ` WHERE ` + where + ` ORDER BY created_at DESC, id DESC ` + pageClause(p) + `
	) p ON p.id = m.id`
}

// FindMessages returns one page of the caller's messages, newest first.
func (s *MessageService) FindMessages(ctx context.Context, c *answerdesk.Caller, q answerdesk.MessageQuery) ([]*answerdesk.Message, answerdesk.PageMeta, error) {
	if err := c.RequireScope(answerdesk.ScopeMessagesRead); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	where, args := messageWhere(s.db.d, c, q)
	from, fromArgs := s.db.d.messageSource(q)
	args = slices.Concat(fromArgs, args, []any{q.Offset()})
	if q.Searching() {
		return s.search(ctx, c, q, from, where, args)
	}
	total, err := s.count(ctx, c, q)
	if err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	meta := answerdesk.NewPageMeta(q.Page, q.PageSize, total)
	if q.Offset() >= total {
		return []*answerdesk.Message{}, meta, nil
	}
	list, err := s.query(ctx, messageListSQL(from, where, q.Paging), args...)
	return list, meta, err
}

// search runs a message search's page query first: where the engine counts in it
// (dialect.countsInSearch) its rows carry the number of matches, and otherwise a page that
// is not full ends the matches, so they are counted only when the page is full. A page past
// the last has no rows to tell: then the matches are counted on their own.
func (s *MessageService) search(ctx context.Context, c *answerdesk.Caller, q answerdesk.MessageQuery, from, where string, args []any) ([]*answerdesk.Message, answerdesk.PageMeta, error) {
	var list []*answerdesk.Message
	var err error
	total := 0
	if s.db.d.countsInSearch {
		list, err = s.queryRows(ctx, messageSearchSQL(from, where, q.Paging), args, func(row scanner) (*answerdesk.Message, error) {
			var m answerdesk.Message
			err := row.Scan(append(messageRow.targets(&m), &total)...)
			return &m, err
		})
	} else {
		list, err = s.query(ctx, messageListSQL(from, where, q.Paging), args...)
		total = q.Offset() + len(list)
		if err == nil && len(list) == q.PageSize {
			total, err = s.count(ctx, c, q)
		}
	}
	if err == nil && len(list) == 0 && q.Offset() > 0 {
		total, err = s.count(ctx, c, q)
	}
	if err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	return list, answerdesk.NewPageMeta(q.Page, q.PageSize, total), nil
}

const dayMS = 24 * 60 * 60 * 1000

// countSQL returns the query counting the messages that match q. It sums the per-day
// rollup message_counts (kept by triggers, migration 0002) when the date bounds are whole
// UTC days, as validated filters always are, and q searches no words or numbers; it
// counts the messages themselves otherwise.
func countSQL(d dialect, c *answerdesk.Caller, q answerdesk.MessageQuery) (string, []any) {
	if !q.Searching() && q.Since%dayMS == 0 && q.Until%dayMS == 0 {
		where, args := messageConds(d, c, q, "day", q.Since/dayMS, q.Until/dayMS)
		return `SELECT coalesce(sum(n), 0) FROM message_counts WHERE ` + where, args
	}
	where, args := messageWhere(d, c, q)
	from, fromArgs := d.messageSource(q)
	return `SELECT count(*) FROM ` + from + ` WHERE ` + where, append(fromArgs, args...)
}

func (s *MessageService) count(ctx context.Context, c *answerdesk.Caller, q answerdesk.MessageQuery) (int, error) {
	query, args := countSQL(s.db.d, c, q)
	var total int
	if err := s.db.rd.QueryRowContext(ctx, query, args...).Scan(&total); err != nil {
		return 0, fmt.Errorf("count messages: %w", err)
	}
	return total, nil
}

// RecentMessages returns the caller's newest messages.
func (s *MessageService) RecentMessages(ctx context.Context, c *answerdesk.Caller, limit int) ([]*answerdesk.Message, error) {
	if err := c.RequireScope(answerdesk.ScopeMessagesRead); err != nil {
		return nil, err
	}
	where, args := messageWhere(s.db.d, c, answerdesk.MessageQuery{})
	return s.query(ctx, messageListSQL("messages", where, answerdesk.Paging{Page: 1, PageSize: limit}), append(args, 0)...)
}

func (s *MessageService) query(ctx context.Context, query string, args ...any) ([]*answerdesk.Message, error) {
	return s.queryRows(ctx, query, args, scanMessage)
}

// queryRows is query with each row read by scan.
func (s *MessageService) queryRows(ctx context.Context, query string, args []any, scan func(scanner) (*answerdesk.Message, error)) ([]*answerdesk.Message, error) {
	rows, err := s.db.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	defer rows.Close()
	list := []*answerdesk.Message{}
	for rows.Next() {
		m, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan message: %w", err)
		}
		list = append(list, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list messages: %w", err)
	}
	slices.SortFunc(list, func(a, b *answerdesk.Message) int {
		if c := b.CreatedAt.Compare(a.CreatedAt.Time); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return list, nil
}

// messageKey turns a path id into a condition on the id or the uuid; ok is false when it
// can be neither, which the caller reports as not found.
func messageKey(idOrUUID string) (cond string, arg any, ok bool) {
	if id, ok := answerdesk.ParseID(idOrUUID); ok {
		return "m.id = ?", id, true
	}
	if u, err := uuid.Parse(idOrUUID); err == nil {
		return "m.uuid = ?", u.String(), true
	}
	return "", nil, false
}

func messageNotFound(idOrUUID string) error {
	return answerdesk.Errorf(answerdesk.ENOTFOUND, "no message %s", answerdesk.Quote(idOrUUID))
}

// FindMessage returns a message by integer id or uuid.
func (s *MessageService) FindMessage(ctx context.Context, c *answerdesk.Caller, idOrUUID string) (*answerdesk.Message, error) {
	if err := c.RequireScope(answerdesk.ScopeMessagesRead); err != nil {
		return nil, err
	}
	return s.find(ctx, s.db.rd, c, idOrUUID)
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *MessageService) find(ctx context.Context, q queryer, c *answerdesk.Caller, idOrUUID string) (*answerdesk.Message, error) {
	cond, arg, ok := messageKey(idOrUUID)
	if !ok {
		return nil, messageNotFound(idOrUUID)
	}
	vis, args := visibility(c, "m.account_id")
	m, err := scanMessage(q.QueryRowContext(ctx, `SELECT `+messageColumns+` FROM messages m WHERE `+cond+` AND `+vis, append([]any{arg}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, messageNotFound(idOrUUID)
	}
	if err != nil {
		return nil, fmt.Errorf("load message %s: %w", idOrUUID, err)
	}
	return m, nil
}

// accountForCreate resolves the account a new message or To Do goes to: the named one if
// the caller may use it, else the caller's only account.
func (db *DB) accountForCreate(ctx context.Context, c *answerdesk.Caller, number string) (*answerdesk.Account, error) {
	field := func(msg string) error { return answerdesk.FieldErr("account_number", msg) }
	var a answerdesk.Account
	var err error
	switch {
	case number != "":
		err = db.rd.QueryRowContext(ctx, `SELECT id, number, name, time_zone FROM accounts WHERE number = ?`, number).
			Scan(&a.ID, &a.Number, &a.Name, &a.TimeZone)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && !c.CanSeeAccount(a.ID)) {
			return nil, field("is not an account you can use")
		}
	case len(c.AccountIDs) == 1:
		err = db.rd.QueryRowContext(ctx, `SELECT id, number, name, time_zone FROM accounts WHERE id = ?`, c.AccountIDs[0]).
			Scan(&a.ID, &a.Number, &a.Name, &a.TimeZone)
	case len(c.AccountIDs) == 0 && !c.Admin:
		e := field("cannot be chosen: your user is not a member of any account").(*answerdesk.Error)
		e.Hint = "An admin adds you to an account: PATCH /api/v2/users/{id} with {\"accounts\": [\"NUMBER\"]}, or answerdesk user update --email EMAIL --account NUMBER."
		return nil, e
	case len(c.AccountIDs) == 0:
		return nil, field("is required: an admin names the account to use")
	default:
		return nil, field("is required because you are a member of more than one account")
	}
	if err != nil {
		return nil, fmt.Errorf("load account %q: %w", number, err)
	}
	return &a, nil
}

// CreateMessage stores a new message with status new.
func (s *MessageService) CreateMessage(ctx context.Context, c *answerdesk.Caller, req *answerdesk.MessageCreate) (*answerdesk.Message, error) {
	if err := c.RequireScope(answerdesk.ScopeMessagesWrite); err != nil {
		return nil, err
	}
	acct, err := s.db.accountForCreate(ctx, c, req.AccountNumber)
	if err != nil {
		return nil, err
	}
	answers := []byte("{}")
	if req.Answers != nil {
		if answers, err = json.Marshal(req.Answers); err != nil {
			return nil, fmt.Errorf("encode answers: %w", err)
		}
	}
	created := s.db.now()
	now := created.UnixMilli()
	// escalation_level_id (index 6) and next_escalation_at (index 13) are the request's until
	// the transaction plans the first level.
	cols := []string{"uuid", "account_id", "user_id", "content", "status", "origin", "escalation_level_id", "is_emergency",
		"answers", "created_at", "updated_at", "message_received_date", "call_id", "next_escalation_at"}
	args := []any{uuid.NewString(), acct.ID, c.UserID, req.Content, answerdesk.StatusNew, req.Origin, req.EscalationLevelID, req.IsEmergency,
		string(answers), now, now, now, req.CallID, nil}
	for _, name := range answerdesk.MessageStringFields() {
		if v, ok := req.Strings[name]; ok {
			cols, args = append(cols, name), append(args, v)
		}
	}
	var m *answerdesk.Message
	err = s.db.txGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The message's first escalation level is read before it is written, so that the
		// row goes in whole, with its deliveries after it, in its transaction (the outbox
		// pattern: a message that exists has its deliveries, whatever happens to the process
		// next), rather than written and then updated with its level (which rewrote the row,
		// its counters and, on PostgreSQL, its search column a second time).
		above := 0
		if req.EscalationLevelID != nil {
			above = int(*req.EscalationLevelID) - 1
		}
		plan, err := planLevel(ctx, tx, acct.ID, 0, above, created)
		if err != nil {
			return err
		}
		args := args
		if plan.level > 0 {
			args = slices.Clone(args)
			args[6], args[13] = int64(plan.level), plan.next
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO messages (`+strings.Join(cols, ", ")+`) VALUES (`+placeholders(len(cols))+`) RETURNING id`, args...).Scan(&id); err != nil {
			return fmt.Errorf("insert message: %w", err)
		}
		if err := plan.enqueue(ctx, tx, acct.ID, id, created); err != nil {
			return err
		}
		m, err = s.find(ctx, tx, c, strconv.FormatInt(id, 10))
		return err
	})
	if err != nil {
		return nil, err
	}
	if s.OnCreate != nil {
		s.OnCreate()
	}
	return m, nil
}

// update applies set (an UPDATE's SET and WHERE tail, given the message id as its last
// argument) to a visible message and returns the message as it is afterwards.
func (s *MessageService) update(ctx context.Context, c *answerdesk.Caller, idOrUUID, set string, args ...any) (*answerdesk.Message, error) {
	var m *answerdesk.Message
	// READ COMMITTED on PostgreSQL, as a create: the UPDATE is one conditional statement (set
	// is idempotent), and it changes the account's counter and version rows that concurrent
	// creates change too, so under SERIALIZABLE they would fail each other.
	err := s.db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		cur, err := s.find(ctx, tx, c, idOrUUID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET `+set, append(args, cur.ID)...); err != nil {
			return fmt.Errorf("update message %d: %w", cur.ID, err)
		}
		m, err = s.find(ctx, tx, c, strconv.FormatInt(cur.ID, 10))
		return err
	})
	return m, err
}

// AcknowledgeMessage marks the message acknowledged and clears its next escalation.
// Acknowledging again changes nothing.
func (s *MessageService) AcknowledgeMessage(ctx context.Context, c *answerdesk.Caller, idOrUUID string) (*answerdesk.Message, error) {
	if err := c.RequireScope(answerdesk.ScopeMessagesWrite); err != nil {
		return nil, err
	}
	now := s.db.now().UnixMilli()
	return s.update(ctx, c, idOrUUID, `status = ?, acknowledged_at = ?, next_escalation_at = NULL, updated_at = ?
		WHERE id = ? AND status != 'acknowledged'`, answerdesk.StatusAcknowledged, now, now)
}

// SetMessageRead sets the read flag; setting it to what it is changes nothing.
func (s *MessageService) SetMessageRead(ctx context.Context, c *answerdesk.Caller, idOrUUID string, read bool) (*answerdesk.Message, error) {
	if err := c.RequireScope(answerdesk.ScopeMessagesWrite); err != nil {
		return nil, err
	}
	return s.update(ctx, c, idOrUUID, `read = ?, updated_at = ? WHERE read != ? AND id = ?`, read, s.db.now().UnixMilli(), read)
}
