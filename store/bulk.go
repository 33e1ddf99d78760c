package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/answerdesk/answerdesk"
)

// Bulk writes generated data (the demo data, load-test messages) in one transaction. It
// skips the services' rules and per-row work: the generator is trusted to write rows the
// services would accept, and writes hundreds of thousands of them fast. Times are Unix
// milliseconds, as stored.
type Bulk struct {
	tx *sql.Tx
}

// BulkLoad runs fn in one transaction and commits what it wrote. Like every transaction
// here, fn may run more than once (a PostgreSQL serialization failure runs it again from
// the start), so it must write the same rows on every run.
func (db *DB) BulkLoad(ctx context.Context, fn func(*Bulk) error) error {
	return db.tx(ctx, func(tx *sql.Tx) error { return fn(&Bulk{tx: tx}) })
}

// AfterBulkLoad brings the planner statistics up to date after many rows were loaded
// (see dialect.afterBulkLoad); it is slow on a large database, so it is for load tests.
func (db *DB) AfterBulkLoad(ctx context.Context) error { return db.d.afterBulkLoad(ctx, db.write) }

// BulkAccount is an account as a generator needs it: its first phone number, if any, is
// the one its callers dial.
type BulkAccount struct {
	ID                     int64
	Number, Name, TimeZone string
	PhoneID                *int64
	Phone                  string // "" when the account has no phone number
}

// Account returns the account with the number, or ENOTFOUND.
func (b *Bulk) Account(ctx context.Context, number string) (*BulkAccount, error) {
	a := &BulkAccount{Number: number}
	err := b.tx.QueryRowContext(ctx, `SELECT id, name, time_zone FROM accounts WHERE number = ?`, number).Scan(&a.ID, &a.Name, &a.TimeZone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no account with number %s", number)
	}
	if err != nil {
		return nil, fmt.Errorf("find account %s: %w", number, err)
	}
	var phoneID int64
	err = b.tx.QueryRowContext(ctx, `SELECT id, number FROM phone_numbers WHERE account_id = ? ORDER BY id LIMIT 1`, a.ID).Scan(&phoneID, &a.Phone)
	switch {
	case err == nil:
		a.PhoneID = &phoneID
	case !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("find phone number of account %s: %w", number, err)
	}
	return a, nil
}

// AddAccount creates the account unless its number exists, and returns its id.
func (b *Bulk) AddAccount(ctx context.Context, number, name, timeZone string, created int64) (int64, error) {
	var id int64
	if _, err := b.tx.ExecContext(ctx, `INSERT INTO accounts (number, name, time_zone, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		number, name, timeZone, created); err != nil {
		return 0, fmt.Errorf("add account %s: %w", number, err)
	}
	if err := b.tx.QueryRowContext(ctx, `SELECT id FROM accounts WHERE number = ?`, number).Scan(&id); err != nil {
		return 0, fmt.Errorf("add account %s: %w", number, err)
	}
	return id, nil
}

// AddMember makes the user a member of the account (nothing if it is one).
func (b *Bulk) AddMember(ctx context.Context, userID, accountID int64) error {
	return addMembership(ctx, b.tx, userID, accountID)
}

// AddPhoneNumber gives the account the number unless it is taken, and returns the number's
// id; aiAssistantID "" is none.
func (b *Bulk) AddPhoneNumber(ctx context.Context, accountID int64, number string, smsEnabled bool, aiAssistantID string) (int64, error) {
	var assistant *string
	if aiAssistantID != "" {
		assistant = &aiAssistantID
	}
	if _, err := b.tx.ExecContext(ctx, `INSERT INTO phone_numbers (account_id, number, sms_enabled, ai_assistant_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		accountID, number, smsEnabled, assistant); err != nil {
		return 0, fmt.Errorf("add phone number %s: %w", number, err)
	}
	var id int64
	// Scoped to the account: a number another account holds is a conflict, not its id.
	err := b.tx.QueryRowContext(ctx, `SELECT id FROM phone_numbers WHERE number = ? AND account_id = ?`, number, accountID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, answerdesk.Errorf(answerdesk.ECONFLICT, "phone number %s belongs to another account", number)
	}
	if err != nil {
		return 0, fmt.Errorf("add phone number %s: %w", number, err)
	}
	return id, nil
}

// AddSendingDomain records a sending domain of the account (nothing if it is recorded).
func (b *Bulk) AddSendingDomain(ctx context.Context, accountID int64, domain string, created int64) error {
	return addSendingDomain(ctx, b.tx, accountID, domain, created)
}

// BlacklistEmail forbids the address as a sending address of the account.
func (b *Bulk) BlacklistEmail(ctx context.Context, accountID int64, email string, created int64) error {
	return blacklistEmail(ctx, b.tx, accountID, email, created)
}

// MaxMessageID returns the largest message id, 0 when there are none.
func (b *Bulk) MaxMessageID(ctx context.Context) (int64, error) {
	var id int64
	if err := b.tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM messages`).Scan(&id); err != nil {
		return 0, fmt.Errorf("max message id: %w", err)
	}
	return id, nil
}

// MessageRow is a message as a generator makes it: the columns of messages it fills.
// Escalation starts at 0 and message_received_date is CreatedAt.
type MessageRow struct {
	UUID                    string
	AccountID               int64
	AgentID, UserID, DIDID  *int64
	ActivitiesCount         int
	CallID, ChatSessionID   *int64
	PhoneNumber, CallerID   *string
	FirstName, LastName     *string
	CompanyName             *string
	Content, Status         string
	IVR, Phone, Email       *string
	CallRefID, Note         *string
	Address, City, State    *string
	Zip, HowYouHeardAboutUs *string
	AltPhone, ReceiverName  *string
	NonMessageType          *string
	EmailSubject            *string
	Origin                  string
	Disposition             *string
	Read, IsEmergency       bool
	CreatedAt, UpdatedAt    int64
	DeliveredAt, AckedAt    *int64
	Answers                 string // a JSON object; "" is {}
}

const messageRowInsert = `INSERT INTO messages (uuid, account_id, agent_id, user_id, did_id, activities_count,
	escalation_counter, call_id, chat_session_id, phone_number, caller_id, first_name, last_name, company_name,
	content, status, ivr, phone, email, call_ref_id, note, address, city, state, zip, how_you_hear_about_us,
	alt_phone, receiver_name, non_message_type, email_subject, origin, disposition, read, is_emergency,
	created_at, updated_at, delivered_at, message_received_date, acknowledged_at, answers)
	VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// InsertMessages inserts the rows through one prepared statement.
func (b *Bulk) InsertMessages(ctx context.Context, rows []*MessageRow) error {
	stmt, err := b.tx.PrepareContext(ctx, messageRowInsert)
	if err != nil {
		return fmt.Errorf("prepare message insert: %w", err)
	}
	defer stmt.Close()
	for _, m := range rows {
		answers := m.Answers
		if answers == "" { // an empty column would be invalid JSON in every response holding the message
			answers = "{}"
		}
		if _, err := stmt.ExecContext(ctx, m.UUID, m.AccountID, m.AgentID, m.UserID, m.DIDID, m.ActivitiesCount,
			m.CallID, m.ChatSessionID, m.PhoneNumber, m.CallerID, m.FirstName, m.LastName, m.CompanyName,
			m.Content, m.Status, m.IVR, m.Phone, m.Email, m.CallRefID, m.Note, m.Address, m.City, m.State, m.Zip, m.HowYouHeardAboutUs,
			m.AltPhone, m.ReceiverName, m.NonMessageType, m.EmailSubject, m.Origin, m.Disposition, m.Read, m.IsEmergency,
			m.CreatedAt, m.UpdatedAt, m.DeliveredAt, m.CreatedAt, m.AckedAt, answers); err != nil {
			return fmt.Errorf("insert message: %w", err)
		}
	}
	return nil
}

// InsertCallRecording stores a recording and its CDR as CreateCallRecording does, and fills
// in r.ID. When audio is not nil the recording gets the audio it makes from the new id (a
// generator's audio may depend on it), stored at its ModTime; has_audio follows audio, so
// the two cannot disagree.
func (b *Bulk) InsertCallRecording(ctx context.Context, r *answerdesk.CallRecording, audio func(id int64) *answerdesk.Audio) error {
	r.HasAudio = audio != nil
	if err := insertCallRecording(ctx, b.tx, r, 0, nil); err != nil {
		return err
	}
	if audio == nil {
		return nil
	}
	a := audio(r.ID)
	return insertAudio(ctx, b.tx, r.ID, a.ContentType, a.Data, a.ModTime.UnixMilli())
}

// HasToDos reports whether any account has a To Do, so a generator adds its To Dos once.
func (db *DB) HasToDos(ctx context.Context) (bool, error) {
	return db.hasRows(ctx, "to_dos")
}

// HasOnCallContacts reports whether any account has an on-call contact.
func (db *DB) HasOnCallContacts(ctx context.Context) (bool, error) {
	return db.hasRows(ctx, "on_call_contacts")
}

// hasRows reports whether table (a name written in this package, never input) has a row.
func (db *DB) hasRows(ctx context.Context, table string) (bool, error) {
	var ok bool
	if err := db.rd.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+`)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("look for rows in %s: %w", table, err)
	}
	return ok, nil
}
