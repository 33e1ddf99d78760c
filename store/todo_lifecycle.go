package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/answerdesk/answerdesk"
)

// Why an occurrence that was waiting was dropped, shown as its error in the deliveries.
const (
	dropPaused    = "not sent: the To Do was paused"
	dropCancelled = "not sent: the To Do was cancelled"
	dropChanged   = "not sent: the To Do's schedule was changed"
)

// toDoID parses a To Do id of the path; anything but a positive integer is not found.
func toDoID(id string) (int64, error) {
	n, ok := answerdesk.ParseID(id)
	if !ok {
		return 0, answerdesk.Errorf(answerdesk.ENOTFOUND, "no to-do %s", answerdesk.Quote(id))
	}
	return n, nil
}

// toDoState is the part of a To Do a lifecycle change reads, inside its transaction.
type toDoState struct {
	id, scheduleID int64
	state          string
	rule, times    string
	startsAt       int64
}

func (st *toDoState) plan() (*answerdesk.Plan, error) {
	var rule map[string]any
	var times []string
	if err := json.Unmarshal([]byte(st.rule), &rule); err != nil {
		return nil, fmt.Errorf("decode rule of to-do %d: %w", st.id, err)
	}
	if err := json.Unmarshal([]byte(st.times), &times); err != nil {
		return nil, fmt.Errorf("decode times of to-do %d: %w", st.id, err)
	}
	p, err := answerdesk.PlanFromRule(rule, times, time.UnixMilli(st.startsAt))
	if err != nil {
		return nil, fmt.Errorf("schedule of to-do %d: %w", st.id, err)
	}
	return p, nil
}

// lockToDo reads a To Do the caller can see inside a write transaction. SQLite's write
// transactions are serial (BEGIN IMMEDIATE, in this process and any other on the file), so
// what it reads cannot change under the caller until the commit: the scheduler's claim
// happens wholly before or wholly after.
func lockToDo(ctx context.Context, tx *sql.Tx, c *answerdesk.Caller, id int64) (*toDoState, error) {
	vis, args := visibility(c, "t.account_id")
	var st toDoState
	err := tx.QueryRowContext(ctx, `SELECT t.id, t.state, s.id, s.rule, s.times, s.starts_at
		FROM to_dos t JOIN schedules s ON s.schedulable_type = 'ToDo' AND s.schedulable_id = t.id
		WHERE t.id = ? AND `+vis, append([]any{id}, args...)...).Scan(&st.id, &st.state, &st.scheduleID, &st.rule, &st.times, &st.startsAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no to-do \"%d\"", id)
	}
	if err != nil {
		return nil, fmt.Errorf("load to-do %d: %w", id, err)
	}
	return &st, nil
}

// dropPending settles the occurrences of a To Do that are waiting (materialised, or
// waiting for a retry) as skipped, so none of them starts. Occurrences already claimed
// (sending) are left to finish: they may be at the provider already.
func dropPending(ctx context.Context, tx *sql.Tx, toDoID int64, reason string, now int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE to_do_occurrences SET status = 'skipped', error = ?, lease_until = NULL, updated_at = ?
		WHERE to_do_id = ? AND status = 'pending'`, reason, now, toDoID); err != nil {
		return fmt.Errorf("drop waiting occurrences of to-do %d: %w", toDoID, err)
	}
	return nil
}

// PauseToDo pauses a To Do: nothing is sent while it is paused and next_occurrence is null.
func (s *ToDoService) PauseToDo(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.ToDo, error) {
	return s.transition(ctx, c, id, answerdesk.ToDoPause)
}

// ResumeToDo resumes a paused To Do from its next occurrence after now; the ones missed
// while it was paused are not sent.
func (s *ToDoService) ResumeToDo(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.ToDo, error) {
	return s.transition(ctx, c, id, answerdesk.ToDoResume)
}

// CancelToDo cancels a To Do for good; it stays readable with its history.
func (s *ToDoService) CancelToDo(ctx context.Context, c *answerdesk.Caller, id string) (*answerdesk.ToDo, error) {
	return s.transition(ctx, c, id, answerdesk.ToDoCancel)
}

// transition applies a lifecycle action in one write transaction.
func (s *ToDoService) transition(ctx context.Context, c *answerdesk.Caller, id, action string) (*answerdesk.ToDo, error) {
	if err := c.RequireScope(answerdesk.ScopeTodosWrite); err != nil {
		return nil, err
	}
	n, err := toDoID(id)
	if err != nil {
		return nil, err
	}
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		st, err := lockToDo(ctx, tx, c, n)
		if err != nil {
			return err
		}
		to, changed, err := answerdesk.ToDoTransition(st.state, action)
		if err != nil || !changed {
			return err
		}
		now := s.db.now()
		nowMS := now.UnixMilli()
		var next *int64
		switch action {
		case answerdesk.ToDoPause:
			err = dropPending(ctx, tx, n, dropPaused, nowMS)
		case answerdesk.ToDoCancel:
			err = dropPending(ctx, tx, n, dropCancelled, nowMS)
		case answerdesk.ToDoResume:
			// An occurrence cut off by a shutdown while the To Do was paused went back to
			// waiting; it was missed while paused, so it is not sent either.
			if err := dropPending(ctx, tx, n, dropPaused, nowMS); err != nil {
				return err
			}
			plan, perr := st.plan()
			if perr != nil {
				return perr
			}
			if at, ok := plan.Next(now); ok {
				ms := at.UnixMilli()
				next = &ms
			}
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schedules SET next_occurrence = ?, updated_at = ? WHERE id = ?`, next, nowMS, st.scheduleID); err != nil {
			return fmt.Errorf("update schedule of to-do %d: %w", n, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE to_dos SET state = ?, updated_at = ? WHERE id = ?`, to, nowMS, n); err != nil {
			return fmt.Errorf("update to-do %d: %w", n, err)
		}
		// A resumed To Do whose schedule has ended is completed at once.
		return s.settleStates(ctx, tx, map[int64]bool{n: true}, nowMS)
	})
	if err != nil {
		return nil, err
	}
	if action == answerdesk.ToDoResume && s.OnCreate != nil {
		s.OnCreate() // the next occurrence may be due now
	}
	return s.find(ctx, c, id)
}

// settleStates completes the active To Dos among ids that have nothing left to send: no
// next occurrence and no occurrence waiting or in flight.
func (s *ToDoService) settleStates(ctx context.Context, tx *sql.Tx, ids map[int64]bool, now int64) error {
	for id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE to_dos SET state = 'completed', updated_at = ?
			WHERE id = ? AND state = 'active'
			AND (SELECT next_occurrence FROM schedules WHERE schedulable_type = 'ToDo' AND schedulable_id = to_dos.id) IS NULL
			AND NOT EXISTS (SELECT 1 FROM to_do_occurrences WHERE to_do_id = to_dos.id AND status IN ('pending', 'sending'))`, now, id); err != nil {
			return fmt.Errorf("complete to-do %d: %w", id, err)
		}
	}
	return nil
}

// UpdateToDo applies a partial update. The merged To Do passes the checks of a create
// (against its account too); a new schedule replaces the old one from now on, and drops
// the occurrences of the old one that were still waiting.
func (s *ToDoService) UpdateToDo(ctx context.Context, c *answerdesk.Caller, id string, p *answerdesk.ToDoPatch) (*answerdesk.ToDo, error) {
	if err := c.RequireScope(answerdesk.ScopeTodosWrite); err != nil {
		return nil, err
	}
	n, err := toDoID(id)
	if err != nil {
		return nil, err
	}
	// The To Do is read, merged, validated and written inside one write transaction:
	// BEGIN IMMEDIATE holds the database's one writer, so the row read is the latest one
	// and no other change can land between the read and the write (two PATCHes at once
	// each keep the other's fields).
	var plan *answerdesk.Plan
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		st, err := lockToDo(ctx, tx, c, n)
		if err != nil {
			return err
		}
		if st.state == answerdesk.ToDoCancelled {
			return cancelledErr()
		}
		cur, err := s.find(ctx, c, id)
		if err != nil {
			return err
		}
		t, err := p.Merge(cur)
		if err != nil {
			return err
		}
		acct := &answerdesk.Account{ID: cur.AccountID, Number: cur.AccountNumber, Name: cur.AccountName}
		if err := s.db.rd.QueryRowContext(ctx, `SELECT time_zone FROM accounts WHERE id = ?`, acct.ID).Scan(&acct.TimeZone); err != nil {
			return fmt.Errorf("load account of to-do %d: %w", n, err)
		}
		var v answerdesk.ValidationErrors
		refs, err := s.accountRefs(ctx, acct, t, &v)
		if err != nil {
			return err
		}
		now := s.db.now()
		if p.HasSchedule() {
			loc, err := time.LoadLocation(acct.TimeZone)
			if err != nil {
				return fmt.Errorf("account %s time zone %q: %w", acct.Number, acct.TimeZone, err)
			}
			var pe *answerdesk.Error
			if plan, err = answerdesk.NewPlan(t.Schedule, now, loc); errors.As(err, &pe) {
				for _, f := range pe.Fields {
					v.Add(f.Field, f.Message)
				}
			} else if err != nil {
				return err
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		nullable := func(s string) any {
			if s == "" {
				return nil
			}
			return s
		}
		nowMS := now.UnixMilli()
		if _, err := tx.ExecContext(ctx, `UPDATE to_dos SET phone_id = ?, name = ?, contact = ?, message_text = ?, instructions = ?,
			from_number = ?, from_email = ?, sender_name = ?, subject = ?, sending_domain_id = ?, ai_assistant_id = ?, updated_at = ?
			WHERE id = ?`, refs.phoneID, t.Name, nullable(t.Contact), nullable(t.MessageText), nullable(t.Instructions),
			nullable(t.From), nullable(t.FromEmail), nullable(t.SenderName), nullable(t.SubjectLine), refs.domainID, refs.assistantID, nowMS, n); err != nil {
			return fmt.Errorf("update to-do %d: %w", n, err)
		}
		if plan == nil {
			return nil
		}
		state := st.state
		var next *int64
		if at, ok := plan.First(); ok && state != answerdesk.ToDoPaused {
			ms := at.UnixMilli()
			next, state = &ms, answerdesk.ToDoActive // a completed To Do with a new schedule runs again
		}
		rule, _ := json.Marshal(plan.Rule)
		times, _ := json.Marshal(plan.Times)
		if _, err := tx.ExecContext(ctx, `UPDATE schedules SET rule = ?, times = ?, starts_at = ?, next_occurrence = ?, updated_at = ? WHERE id = ?`,
			string(rule), string(times), plan.Start().UnixMilli(), next, nowMS, st.scheduleID); err != nil {
			return fmt.Errorf("replace schedule of to-do %d: %w", n, err)
		}
		if err := dropPending(ctx, tx, n, dropChanged, nowMS); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE to_dos SET state = ? WHERE id = ?`, state, n); err != nil {
			return fmt.Errorf("update state of to-do %d: %w", n, err)
		}
		return s.settleStates(ctx, tx, map[int64]bool{n: true}, nowMS)
	})
	if err != nil {
		return nil, err
	}
	if plan != nil && s.OnCreate != nil {
		s.OnCreate()
	}
	return s.find(ctx, c, id)
}

func cancelledErr() error {
	return &answerdesk.Error{Code: answerdesk.EINVALID, Message: "a cancelled to-do cannot be changed",
		Hint:   "Create a new To Do instead.",
		Fields: []answerdesk.FieldError{{Field: "state", Message: "is cancelled: a cancelled To Do cannot be changed"}}}
}

// FindToDoDeliveries returns a page of a To Do's occurrences, newest first, each with its
// attempts (oldest first).
func (s *ToDoService) FindToDoDeliveries(ctx context.Context, c *answerdesk.Caller, id string, p answerdesk.Paging) ([]*answerdesk.ToDoDelivery, answerdesk.PageMeta, error) {
	if err := c.RequireScope(answerdesk.ScopeTodosRead); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	t, err := s.find(ctx, c, id)
	if err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM to_do_occurrences WHERE to_do_id = ?`, t.ID).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count occurrences of to-do %d: %w", t.ID, err)
	}
	meta := answerdesk.NewPageMeta(p.Page, p.PageSize, total)
	list := []*answerdesk.ToDoDelivery{}
	if p.Offset() >= total {
		return list, meta, nil
	}
	rows, err := s.db.rd.QueryContext(ctx, `SELECT id, scheduled_at, status, error FROM to_do_occurrences
		WHERE to_do_id = ? ORDER BY scheduled_at DESC, id DESC `+pageClause(p), t.ID, p.Offset())
	if err != nil {
		return nil, meta, fmt.Errorf("list occurrences of to-do %d: %w", t.ID, err)
	}
	byID := map[int64]*answerdesk.ToDoDelivery{}
	var ids []any
	for rows.Next() {
		d := &answerdesk.ToDoDelivery{Attempts: []answerdesk.ToDoAttempt{}}
		var at int64
		if err := rows.Scan(&d.ID, &at, &d.Status, &d.Error); err != nil {
			rows.Close()
			return nil, meta, fmt.Errorf("scan occurrence: %w", err)
		}
		d.ScheduledFor = fromMS(at)
		list = append(list, d)
		byID[d.ID] = d
		ids = append(ids, d.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, meta, err
	}
	arows, err := s.db.rd.QueryContext(ctx, `SELECT occurrence_id, at, channel, status, error FROM to_do_attempts
		WHERE occurrence_id IN (`+placeholders(len(ids))+`) ORDER BY id`, ids...)
	if err != nil {
		return nil, meta, fmt.Errorf("list attempts of to-do %d: %w", t.ID, err)
	}
	defer arows.Close()
	for arows.Next() {
		var occ, at int64
		var channel string
		var a answerdesk.ToDoAttempt
		if err := arows.Scan(&occ, &at, &channel, &a.Status, &a.Error); err != nil {
			return nil, meta, fmt.Errorf("scan attempt: %w", err)
		}
		if a.Status == answerdesk.AttemptRetry {
			a.Status = answerdesk.DeliveryFailed // a failed attempt that was (or will be) retried
		}
		a.At = fromMS(at)
		d := byID[occ]
		d.Attempts = append(d.Attempts, a)
		d.Channel = &channel
	}
	return list, meta, arows.Err()
}
