package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/answerdesk/answerdesk"
)

// CreateAccount creates a customer account. An empty time zone means America/New_York.
func (db *DB) CreateAccount(ctx context.Context, number, name, timeZone string) (*answerdesk.Account, error) {
	if timeZone == "" {
		timeZone = answerdesk.DefaultTimeZone
	}
	if _, err := time.LoadLocation(timeZone); err != nil {
		return nil, answerdesk.Errorf(answerdesk.EINVALID, "unknown time zone %q", timeZone)
	}
	a := &answerdesk.Account{Number: number, Name: name, TimeZone: timeZone}
	err := db.write.QueryRowContext(ctx, `INSERT INTO accounts (number, name, time_zone, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
		number, name, timeZone, db.now().UnixMilli()).Scan(&a.ID)
	if err != nil {
		if isUnique(err) {
			return nil, answerdesk.Errorf(answerdesk.ECONFLICT, "account %s exists", number)
		}
		return nil, fmt.Errorf("create account %s: %w", number, err)
	}
	return a, nil
}

// CreateCallRecording stores a recording and its CDR, as the telephony side hands them
// over, with its audio when audio is not nil. It fills in r.ID.
func (db *DB) CreateCallRecording(ctx context.Context, r *answerdesk.CallRecording, audio *answerdesk.Audio) error {
	r.HasAudio = audio != nil
	// Two inserts that read nothing: READ COMMITTED, as a message create (the account's data
	// version row they bump is bumped by every message write too).
	return db.txReadCommitted(ctx, func(tx *sql.Tx) error {
		if err := insertCallRecording(ctx, tx, r, 0, nil); err != nil {
			return err
		}
		if audio == nil {
			return nil
		}
		return insertAudio(ctx, tx, r.ID, audio.ContentType, audio.Data, r.StartedAt.UnixMilli())
	})
}

// insertCallRecording inserts r, with has_audio from r.HasAudio, and fills in r.ID;
// messageID (0: none) links it to the message its call produced, and audio, when not nil,
// names audio already stored.
func insertCallRecording(ctx context.Context, tx *sql.Tx, r *answerdesk.CallRecording, messageID int64, audio *answerdesk.AudioInfo) error {
	d := &r.CDR
	ms := func(t *answerdesk.Time) any {
		if t == nil {
			return nil
		}
		return t.UnixMilli()
	}
	var a struct {
		store, key, contentType, size, sha256 any
	}
	if audio != nil {
		a.store, a.key, a.contentType, a.size, a.sha256 = audio.Store, audio.Key, audio.ContentType, audio.Size, audio.SHA256
	}
	err := tx.QueryRowContext(ctx, `INSERT INTO call_recordings (account_id, call_id, call_sid, did_number,
		from_number, agent_username, started_at, has_audio, cdr_id, unique_call_id, agent_id, original_call_id,
		call_type, start_client, end_client, callerid, number_dialed, did, agent_name, skill_name, skill_id,
		who_hung_up, connection_sec, ivr_sec, wait_sec, talk_sec, hold_sec, transfer_sec, wrap_sec,
		conference_sec, conference_talk_sec, start_time, agent_answer_time, end_time, hang_up_time,
		call_created_at, is_orphaned, message_id, audio_store, audio_key, audio_type, audio_size, audio_sha256)
		VALUES (`+placeholders(43)+`) RETURNING id`,
		r.AccountID, r.CallID, r.CallSID, r.DIDNumber, r.From, r.AgentUsername, r.StartedAt.UnixMilli(), r.HasAudio,
		d.ID, d.UniqueCallID, d.AgentID, d.OriginalCallID, d.CallType, d.StartClient, d.EndClient, d.CallerID,
		d.NumberDialed, d.DID, d.AgentName, d.SkillName, d.SkillID, d.WhoHungUp, d.ConnectionSec, d.IVRSec,
		d.WaitSec, d.TalkSec, d.HoldSec, d.TransferSec, d.WrapSec, d.ConferenceSec, d.ConferenceTalkSec,
		d.StartTime.UnixMilli(), ms(d.AgentAnswerTime), ms(d.EndTime), ms(d.HangUpTime), d.CallCreatedAt.UnixMilli(), d.IsOrphaned,
		nullID(messageID), a.store, a.key, a.contentType, a.size, a.sha256).Scan(&r.ID)
	if err != nil {
		return fmt.Errorf("insert call recording: %w", err)
	}
	return nil
}

// insertAudio stores the audio of a recording (the demo's and CreateCallRecording's, whole
// in memory and small) in the database's audio store, as one object of one chunk, and
// names it on the recording's row.
func insertAudio(ctx context.Context, tx *sql.Tx, recordingID int64, contentType string, data []byte, created int64) error {
	key := fmt.Sprintf("recordings/db/%d", recordingID)
	sum := sha256.Sum256(data)
	if _, err := tx.ExecContext(ctx, `INSERT INTO audio_objects (key, size, sha256, complete, created_at) VALUES (?, ?, ?, 1, ?)`,
		key, len(data), hex.EncodeToString(sum[:]), created); err != nil {
		return fmt.Errorf("insert audio of recording %d: %w", recordingID, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO audio_chunks (key, seq, offset_, data) VALUES (?, 0, 0, ?)`, key, data); err != nil {
		return fmt.Errorf("insert audio of recording %d: %w", recordingID, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE call_recordings SET audio_store = ?, audio_key = ?, audio_type = ?, audio_size = ?,
		audio_sha256 = ? WHERE id = ?`, answerdesk.AudioStoreDB, key, contentType, len(data), hex.EncodeToString(sum[:]), recordingID); err != nil {
		return fmt.Errorf("insert audio of recording %d: %w", recordingID, err)
	}
	return nil
}

// AddPhoneNumber gives an account a phone number; SMS-enabled numbers may send SMS To Dos
// and an attached AI assistant enables AI outbound calls.
func (db *DB) AddPhoneNumber(ctx context.Context, accountID int64, number string, smsEnabled bool, aiAssistantID string) (int64, error) {
	var assistant any
	if aiAssistantID != "" {
		assistant = aiAssistantID
	}
	var id int64
	err := db.write.QueryRowContext(ctx, `INSERT INTO phone_numbers (account_id, number, sms_enabled, ai_assistant_id) VALUES (?, ?, ?, ?) RETURNING id`,
		accountID, number, smsEnabled, assistant).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add phone number %s: %w", number, err)
	}
	return id, nil
}

// AddSendingDomain records an authenticated email-sending domain of an account.
func (db *DB) AddSendingDomain(ctx context.Context, accountID int64, domain string) (int64, error) {
	var id int64
	err := db.write.QueryRowContext(ctx, `INSERT INTO sending_domains (account_id, domain, created_at) VALUES (?, ?, ?) RETURNING id`,
		accountID, answerdesk.DomainKey(domain), db.now().UnixMilli()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("add sending domain %s: %w", domain, err)
	}
	return id, nil
}

// BlacklistEmail forbids an address as a sending address of an account.
func (db *DB) BlacklistEmail(ctx context.Context, accountID int64, email string) error {
	return blacklistEmail(ctx, db.write, accountID, answerdesk.EmailKey(email), db.now().UnixMilli())
}

// execer runs a statement on the database or in a transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// The account's parts below are added by several writers (the admin API, the demo data,
// tests); adding one again changes nothing, and the values are normalised already.

// addSendingDomain records a sending domain of the account.
func addSendingDomain(ctx context.Context, ex execer, accountID int64, domain string, created int64) error {
	if _, err := ex.ExecContext(ctx, `INSERT INTO sending_domains (account_id, domain, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		accountID, domain, created); err != nil {
		return fmt.Errorf("add sending domain %s: %w", domain, err)
	}
	return nil
}

// blacklistEmail forbids the address as a sending address of the account.
func blacklistEmail(ctx context.Context, ex execer, accountID int64, email string, created int64) error {
	if _, err := ex.ExecContext(ctx, `INSERT INTO email_blacklist (account_id, email, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
		accountID, email, created); err != nil {
		return fmt.Errorf("blacklist %s: %w", email, err)
	}
	return nil
}

// addMembership makes the user a member of the account.
func addMembership(ctx context.Context, ex execer, userID, accountID int64) error {
	if _, err := ex.ExecContext(ctx, `INSERT INTO memberships (user_id, account_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, userID, accountID); err != nil {
		return fmt.Errorf("add membership: %w", err)
	}
	return nil
}

// AccountService reads the accounts a caller can see, with the numbers and sending domains
// their To Dos may use.
type AccountService struct {
	db *DB
}

// NewAccountService returns the account service over db.
func NewAccountService(db *DB) *AccountService { return &AccountService{db: db} }

// FindAccounts returns one page of the accounts the caller can see, by number.
func (s *AccountService) FindAccounts(ctx context.Context, c *answerdesk.Caller, p answerdesk.Paging) ([]*answerdesk.AccountDetail, answerdesk.PageMeta, error) {
	if err := c.RequireAnyScope(); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	vis, args := visibility(c, "id")
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM accounts WHERE `+vis, args...).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count accounts: %w", err)
	}
	meta := answerdesk.NewPageMeta(p.Page, p.PageSize, total)
	list := []*answerdesk.AccountDetail{}
	if p.Offset() >= total {
		return list, meta, nil
	}
	rows, err := s.db.rd.QueryContext(ctx, `SELECT id, number, name, time_zone FROM accounts WHERE `+vis+`
		ORDER BY number, id `+pageClause(p), append(args, p.Offset())...)
	if err != nil {
		return nil, meta, fmt.Errorf("list accounts: %w", err)
	}
	byID := map[int64]*answerdesk.AccountDetail{}
	ids := []any{}
	for rows.Next() {
		a := &answerdesk.AccountDetail{SMSNumbers: []string{}, SendingDomains: []string{}}
		if err := rows.Scan(&a.ID, &a.Number, &a.Name, &a.TimeZone); err != nil {
			rows.Close()
			return nil, meta, fmt.Errorf("scan account: %w", err)
		}
		list = append(list, a)
		byID[a.ID] = a
		ids = append(ids, a.ID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, meta, fmt.Errorf("list accounts: %w", err)
	}
	if len(ids) == 0 {
		return list, meta, nil
	}
	// Two queries for the whole page rather than two per account.
	in := `account_id IN (` + placeholders(len(ids)) + `)`
	if err := s.collect(ctx, `SELECT account_id, number FROM phone_numbers WHERE sms_enabled = 1 AND `+in+` ORDER BY number`, ids,
		func(a *answerdesk.AccountDetail, v string) { a.SMSNumbers = append(a.SMSNumbers, v) }, byID); err != nil {
		return nil, meta, fmt.Errorf("list SMS numbers: %w", err)
	}
	if err := s.collect(ctx, `SELECT account_id, domain FROM sending_domains WHERE `+in+` ORDER BY domain`, ids,
		func(a *answerdesk.AccountDetail, v string) { a.SendingDomains = append(a.SendingDomains, v) }, byID); err != nil {
		return nil, meta, fmt.Errorf("list sending domains: %w", err)
	}
	return list, meta, nil
}

// collect runs a query of (account_id, value) rows and hands each value to add with its account.
func (s *AccountService) collect(ctx context.Context, query string, args []any, add func(*answerdesk.AccountDetail, string), byID map[int64]*answerdesk.AccountDetail) error {
	rows, err := s.db.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			return err
		}
		if a := byID[id]; a != nil {
			add(a, v)
		}
	}
	return rows.Err()
}

// FindMe returns the caller's user and the accounts they are a member of (the caller's
// AccountIDs, so a credential narrowed to fewer accounts shows only those), by number.
func (s *AccountService) FindMe(ctx context.Context, c *answerdesk.Caller) (*answerdesk.Me, error) {
	if err := c.RequireAnyScope(); err != nil {
		return nil, err
	}
	me := &answerdesk.Me{ID: c.UserID, Email: c.Email, Admin: c.Admin, Accounts: []*answerdesk.Account{}}
	if len(c.AccountIDs) == 0 {
		return me, nil
	}
	args := make([]any, len(c.AccountIDs))
	for i, id := range c.AccountIDs {
		args[i] = id
	}
	rows, err := s.db.rd.QueryContext(ctx, `SELECT id, number, name, time_zone FROM accounts
		WHERE id IN (`+placeholders(len(args))+`) ORDER BY number, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list accounts of user %d: %w", c.UserID, err)
	}
	defer rows.Close()
	for rows.Next() {
		a := &answerdesk.Account{}
		if err := rows.Scan(&a.ID, &a.Number, &a.Name, &a.TimeZone); err != nil {
			return nil, fmt.Errorf("scan account of user %d: %w", c.UserID, err)
		}
		me.Accounts = append(me.Accounts, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accounts of user %d: %w", c.UserID, err)
	}
	return me, nil
}

// nullID is id, or NULL for 0.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
