package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/answerdesk/answerdesk"
	"golang.org/x/crypto/bcrypt"
)

// AdminService implements answerdesk.AdminService: provisioning of accounts, their SMS
// numbers, sending domains and the email blacklist, and users.
type AdminService struct {
	db    *DB
	users *UserService
}

// NewAdminService returns the admin service over db; users hashes the passwords it sets.
func NewAdminService(db *DB, users *UserService) *AdminService {
	if users == nil {
		users = NewUserService(db)
	}
	return &AdminService{db: db, users: users}
}

var _ answerdesk.AdminService = (*AdminService)(nil)

// CreateAccount creates an account with its SMS numbers and sending domains in one transaction.
func (s *AdminService) CreateAccount(ctx context.Context, c *answerdesk.Caller, req *answerdesk.AccountCreate) (*answerdesk.AccountDetail, error) {
	if err := c.RequireAdmin(); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	now := s.db.now().UnixMilli()
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `INSERT INTO accounts (number, name, time_zone, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			req.Number, req.Name, req.TimeZone, now).Scan(&id)
		if isUnique(err) {
			return answerdesk.FieldErr("number", "is taken by another account")
		}
		if err != nil {
			return fmt.Errorf("insert account %s: %w", req.Number, err)
		}
		for _, n := range req.SMSNumbers {
			if err := addSMSNumberTx(ctx, tx, id, n, "sms_numbers"); err != nil {
				return err
			}
		}
		for _, d := range req.SendingDomains {
			if err := addSendingDomainTx(ctx, tx, id, d, now, "sending_domains"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.FindAccount(ctx, c, req.Number)
}

// addSMSNumberTx makes number an SMS-enabled number of the account: a new phone number, or
// the account's existing one turned SMS-enabled, or one another account released (removed
// there). A number taken over is the new account's alone: the AI assistant of the account
// that released it is detached, and so are that account's To Dos, which would otherwise
// send from it or show it as their caller ID. A number another account uses for SMS is a
// 422 on field, and so is one past MaxSMSNumbersPerAccount.
func addSMSNumberTx(ctx context.Context, tx *sql.Tx, accountID int64, number, field string) error {
	var owner int64
	var sms bool
	err := tx.QueryRowContext(ctx, `SELECT account_id, sms_enabled FROM phone_numbers WHERE number = ?`, number).Scan(&owner, &sms)
	switch {
	case err == nil && owner == accountID && sms:
		return nil // already
	case err == nil && owner != accountID && sms:
		return answerdesk.FieldErr(field, number+" belongs to another account")
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("add SMS number %s: %w", number, err)
	}
	if err := checkCount(ctx, tx, field, `SELECT count(*) FROM phone_numbers WHERE account_id = ? AND sms_enabled = 1`, accountID,
		answerdesk.MaxSMSNumbersPerAccount, "SMS numbers"); err != nil {
		return err
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, `INSERT INTO phone_numbers (account_id, number, sms_enabled) VALUES (?, ?, 1)`, accountID, number)
	case owner == accountID:
		_, err = tx.ExecContext(ctx, `UPDATE phone_numbers SET sms_enabled = 1 WHERE number = ?`, number)
	default:
		if _, err = tx.ExecContext(ctx, `UPDATE to_dos SET phone_id = NULL WHERE phone_id IN (SELECT id FROM phone_numbers WHERE number = ?)`,
			number); err != nil {
			return fmt.Errorf("detach SMS number %s from the To Dos of the account that released it: %w", number, err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE phone_numbers SET account_id = ?, sms_enabled = 1, ai_assistant_id = NULL WHERE number = ?`,
			accountID, number)
	}
	if err != nil {
		return fmt.Errorf("add SMS number %s: %w", number, err)
	}
	return nil
}

// checkCount refuses with a 422 on field when query (counting one account's entries of
// what) already counts limit: counted in the writing transaction, so that concurrent adds
// cannot both pass.
func checkCount(ctx context.Context, tx *sql.Tx, field, query string, accountID int64, limit int, what string) error {
	var n int
	if err := tx.QueryRowContext(ctx, query, accountID).Scan(&n); err != nil {
		return fmt.Errorf("count %s of account %d: %w", what, accountID, err)
	}
	if n >= limit {
		return answerdesk.FieldErr(field, fmt.Sprintf("cannot be added: the account has %d %s, the most it may have; remove one first", n, what))
	}
	return nil
}

// addSendingDomainTx adds an authenticated sending domain to the account. A domain belongs
// to one account at a time: another account's is a 422 on field (its members could send
// as that account otherwise), and so is one past MaxSendingDomainsPerAccount. Adding it
// twice is a no-op.
func addSendingDomainTx(ctx context.Context, tx *sql.Tx, accountID int64, domain string, created int64, field string) error {
	var owner int64
	err := tx.QueryRowContext(ctx, `SELECT account_id FROM sending_domains WHERE domain = ? ORDER BY account_id = ? DESC LIMIT 1`,
		domain, accountID).Scan(&owner)
	switch {
	case err == nil && owner == accountID:
		return nil
	case err == nil:
		return answerdesk.FieldErr(field, domain+" belongs to another account")
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("add sending domain %s: %w", domain, err)
	}
	if err := checkCount(ctx, tx, field, `SELECT count(*) FROM sending_domains WHERE account_id = ?`, accountID,
		answerdesk.MaxSendingDomainsPerAccount, "sending domains"); err != nil {
		return err
	}
	return addSendingDomain(ctx, tx, accountID, domain, created)
}

// UpdateAccount changes an account's name or time zone.
func (s *AdminService) UpdateAccount(ctx context.Context, c *answerdesk.Caller, number string, req *answerdesk.AccountUpdate) (*answerdesk.AccountDetail, error) {
	if err := c.RequireAdmin(); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	id, err := s.accountID(ctx, number)
	if err != nil {
		return nil, err
	}
	if req.Name != nil {
		if _, err := s.db.write.ExecContext(ctx, `UPDATE accounts SET name = ? WHERE id = ?`, *req.Name, id); err != nil {
			return nil, fmt.Errorf("rename account %s: %w", number, err)
		}
	}
	if req.TimeZone != nil {
		if _, err := s.db.write.ExecContext(ctx, `UPDATE accounts SET time_zone = ? WHERE id = ?`, *req.TimeZone, id); err != nil {
			return nil, fmt.Errorf("set time zone of account %s: %w", number, err)
		}
	}
	return s.FindAccount(ctx, c, number)
}

// accountID returns the id of the account with the number, or ENOTFOUND.
func (s *AdminService) accountID(ctx context.Context, number string) (int64, error) {
	var id int64
	err := s.db.rd.QueryRowContext(ctx, `SELECT id FROM accounts WHERE number = ?`, strings.TrimSpace(number)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, answerdesk.Errorf(answerdesk.ENOTFOUND, "no account %s", answerdesk.Quote(number))
	}
	if err != nil {
		return 0, fmt.Errorf("find account %s: %w", number, err)
	}
	return id, nil
}

// adminAccount checks that the caller is an admin and returns the id of the account
// numbered number: the preamble of every operation on an account's numbers, domains and
// blacklist.
func (s *AdminService) adminAccount(ctx context.Context, c *answerdesk.Caller, number string) (int64, error) {
	if err := c.RequireAdmin(); err != nil {
		return 0, err
	}
	return s.accountID(ctx, number)
}

// FindAccount returns the account with the number when the caller can see it.
func (s *AdminService) FindAccount(ctx context.Context, c *answerdesk.Caller, number string) (*answerdesk.AccountDetail, error) {
	id, err := s.accountID(ctx, number)
	if err != nil {
		return nil, err
	}
	if !c.CanSeeAccount(id) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no account %s", answerdesk.Quote(number))
	}
	a := &answerdesk.AccountDetail{SMSNumbers: []string{}, SendingDomains: []string{}}
	if err := s.db.rd.QueryRowContext(ctx, `SELECT id, number, name, time_zone FROM accounts WHERE id = ?`, id).
		Scan(&a.ID, &a.Number, &a.Name, &a.TimeZone); err != nil {
		return nil, fmt.Errorf("load account %s: %w", number, err)
	}
	byID := map[int64]*answerdesk.AccountDetail{id: a}
	as := &AccountService{db: s.db}
	if err := as.collect(ctx, `SELECT account_id, number FROM phone_numbers WHERE sms_enabled = 1 AND account_id = ? ORDER BY number`, []any{id},
		func(a *answerdesk.AccountDetail, v string) { a.SMSNumbers = append(a.SMSNumbers, v) }, byID); err != nil {
		return nil, fmt.Errorf("list SMS numbers: %w", err)
	}
	if err := as.collect(ctx, `SELECT account_id, domain FROM sending_domains WHERE account_id = ? ORDER BY domain`, []any{id},
		func(a *answerdesk.AccountDetail, v string) { a.SendingDomains = append(a.SendingDomains, v) }, byID); err != nil {
		return nil, fmt.Errorf("list sending domains: %w", err)
	}
	return a, nil
}

// AddSMSNumber makes a number an SMS-enabled number of the account; adding it twice is a no-op.
func (s *AdminService) AddSMSNumber(ctx context.Context, c *answerdesk.Caller, account, number string) (*answerdesk.AccountDetail, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, err
	}
	n, err := answerdesk.NormalizeSMSNumber(number)
	if err != nil {
		return nil, answerdesk.FieldErr("number", answerdesk.ErrorMessage(err))
	}
	if err := s.db.tx(ctx, func(tx *sql.Tx) error { return addSMSNumberTx(ctx, tx, id, n, "number") }); err != nil {
		return nil, err
	}
	return s.FindAccount(ctx, c, account)
}

// RemoveSMSNumber stops a number sending SMS To Dos and releases it: another account may
// add it then. The phone number's row stays until then, since messages and existing To Dos
// refer to it.
func (s *AdminService) RemoveSMSNumber(ctx context.Context, c *answerdesk.Caller, account, number string) (*answerdesk.SMSNumber, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, err
	}
	n, err := answerdesk.NormalizeSMSNumber(number)
	if err != nil {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "account %s has no SMS number %s", account, answerdesk.Quote(number))
	}
	if err := s.removeEntry(ctx, "SMS number "+n, answerdesk.Errorf(answerdesk.ENOTFOUND, "account %s has no SMS number %s", account, n),
		`UPDATE phone_numbers SET sms_enabled = 0 WHERE account_id = ? AND number = ? AND sms_enabled = 1`, id, n); err != nil {
		return nil, err
	}
	return &answerdesk.SMSNumber{AccountNumber: account, Number: n}, nil
}

// removeEntry runs query, which takes one entry (what) off an account's list; when it
// takes nothing off, the answer is missing.
func (s *AdminService) removeEntry(ctx context.Context, what string, missing error, query string, args ...any) error {
	res, err := s.db.write.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("remove %s: %w", what, err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return missing
	}
	return nil
}

// AddSendingDomain records an authenticated sending domain: the admin who adds it vouches
// that its SPF and DKIM are set up. Adding it twice is a no-op.
func (s *AdminService) AddSendingDomain(ctx context.Context, c *answerdesk.Caller, account, domain string) (*answerdesk.AccountDetail, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, err
	}
	d, err := answerdesk.NormalizeDomain(domain)
	if err != nil {
		return nil, answerdesk.FieldErr("domain", answerdesk.ErrorMessage(err))
	}
	now := s.db.now().UnixMilli()
	if err := s.db.tx(ctx, func(tx *sql.Tx) error { return addSendingDomainTx(ctx, tx, id, d, now, "domain") }); err != nil {
		return nil, err
	}
	return s.FindAccount(ctx, c, account)
}

// RemoveSendingDomain removes a sending domain: new email To Dos cannot use it, and the
// occurrences of existing ones fail until it is added again (see StartOccurrence).
func (s *AdminService) RemoveSendingDomain(ctx context.Context, c *answerdesk.Caller, account, domain string) (*answerdesk.SendingDomain, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, err
	}
	d := answerdesk.DomainKey(domain)
	if err := s.removeEntry(ctx, "sending domain "+d, answerdesk.Errorf(answerdesk.ENOTFOUND, "account %s has no sending domain %s", account, answerdesk.Quote(domain)),
		`DELETE FROM sending_domains WHERE account_id = ? AND domain = ?`, id, d); err != nil {
		return nil, err
	}
	return &answerdesk.SendingDomain{AccountNumber: account, Domain: d}, nil
}

// AddBlacklistedEmail blacklists an address as a sending address of the account.
// Adding it twice is a no-op that answers with the first entry.
func (s *AdminService) AddBlacklistedEmail(ctx context.Context, c *answerdesk.Caller, account, email string) (*answerdesk.BlacklistEntry, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, err
	}
	e, err := answerdesk.NormalizeEmail(email)
	if err != nil {
		return nil, answerdesk.FieldErr("email", answerdesk.ErrorMessage(err))
	}
	now := s.db.now().UnixMilli()
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		var listed bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM email_blacklist WHERE account_id = ? AND email = ?)`, id, e).Scan(&listed); err != nil {
			return fmt.Errorf("find blacklist entry %s: %w", e, err)
		}
		if listed {
			return nil
		}
		if err := checkCount(ctx, tx, "email", `SELECT count(*) FROM email_blacklist WHERE account_id = ?`, id,
			answerdesk.MaxBlacklistPerAccount, "blacklisted addresses"); err != nil {
			return err
		}
		return blacklistEmail(ctx, tx, id, e, now)
	})
	if err != nil {
		return nil, err
	}
	return s.blacklistEntry(ctx, id, account, e)
}

func (s *AdminService) blacklistEntry(ctx context.Context, accountID int64, account, email string) (*answerdesk.BlacklistEntry, error) {
	var created int64
	err := s.db.write.QueryRowContext(ctx, `SELECT created_at FROM email_blacklist WHERE account_id = ? AND email = ?`, accountID, email).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "%s is not blacklisted for account %s", answerdesk.Clip(email), answerdesk.Clip(account))
	}
	if err != nil {
		return nil, fmt.Errorf("find blacklist entry %s: %w", email, err)
	}
	return &answerdesk.BlacklistEntry{Email: email, CreatedAt: fromMS(created)}, nil
}

// FindBlacklist returns one page of the account's blacklisted addresses, by address.
func (s *AdminService) FindBlacklist(ctx context.Context, c *answerdesk.Caller, account string, p answerdesk.Paging) ([]*answerdesk.BlacklistEntry, answerdesk.PageMeta, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM email_blacklist WHERE account_id = ?`, id).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count the blacklist of account %s: %w", account, err)
	}
	rows, err := s.db.rd.QueryContext(ctx, `SELECT email, created_at FROM email_blacklist WHERE account_id = ? ORDER BY email `+pageClause(p),
		id, p.Offset())
	if err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("list the blacklist of account %s: %w", account, err)
	}
	defer rows.Close()
	list := []*answerdesk.BlacklistEntry{}
	for rows.Next() {
		var e answerdesk.BlacklistEntry
		var created int64
		if err := rows.Scan(&e.Email, &created); err != nil {
			return nil, answerdesk.PageMeta{}, fmt.Errorf("scan blacklist entry: %w", err)
		}
		e.CreatedAt = fromMS(created)
		list = append(list, &e)
	}
	return list, answerdesk.NewPageMeta(p.Page, p.PageSize, total), rows.Err()
}

// RemoveBlacklistedEmail lifts a blacklist entry and answers with it.
func (s *AdminService) RemoveBlacklistedEmail(ctx context.Context, c *answerdesk.Caller, account, email string) (*answerdesk.BlacklistEntry, error) {
	id, err := s.adminAccount(ctx, c, account)
	if err != nil {
		return nil, err
	}
	e := answerdesk.EmailKey(email)
	entry, err := s.blacklistEntry(ctx, id, account, e)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.write.ExecContext(ctx, `DELETE FROM email_blacklist WHERE account_id = ? AND email = ?`, id, e); err != nil {
		return nil, fmt.Errorf("remove blacklist entry %s: %w", e, err)
	}
	return entry, nil
}

// CreateUser creates a user (with a password hash when a password is given) and their
// memberships; an unknown account number is a 422 on accounts.
func (s *AdminService) CreateUser(ctx context.Context, c *answerdesk.Caller, req *answerdesk.UserCreate) (*answerdesk.UserDetail, error) {
	if err := c.RequireAdmin(); err != nil {
		return nil, err
	}
	u, err := s.users.CreateUser(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.FindUser(ctx, c, strconv.FormatInt(u.ID, 10))
}

const userColumns = `u.id, u.email, u.admin, u.password_hash <> '', u.created_at, u.disabled_at,
	coalesce((SELECT group_concat(a.number) FROM (SELECT a.number FROM memberships m JOIN accounts a ON a.id = m.account_id
		WHERE m.user_id = u.id ORDER BY a.number) a), '')`

func scanUser(sc interface{ Scan(...any) error }) (*answerdesk.UserDetail, error) {
	var (
		u        answerdesk.UserDetail
		created  int64
		disabled *int64
		accounts string
	)
	if err := sc.Scan(&u.ID, &u.Email, &u.Admin, &u.HasPassword, &created, &disabled, &accounts); err != nil {
		return nil, err
	}
	u.CreatedAt, u.DisabledAt, u.Disabled = fromMS(created), msPtr(disabled), disabled != nil
	u.Accounts = []string{}
	if accounts != "" {
		u.Accounts = strings.Split(accounts, ",")
	}
	return &u, nil
}

// FindUsers returns one page of every user, by id.
func (s *AdminService) FindUsers(ctx context.Context, c *answerdesk.Caller, p answerdesk.Paging) ([]*answerdesk.UserDetail, answerdesk.PageMeta, error) {
	if err := c.RequireAdmin(); err != nil {
		return nil, answerdesk.PageMeta{}, err
	}
	var total int
	if err := s.db.rd.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&total); err != nil {
		return nil, answerdesk.PageMeta{}, fmt.Errorf("count users: %w", err)
	}
	meta := answerdesk.NewPageMeta(p.Page, p.PageSize, total)
	list := []*answerdesk.UserDetail{}
	rows, err := s.db.rd.QueryContext(ctx, `SELECT `+userColumns+` FROM users u ORDER BY u.id `+pageClause(p), p.Offset())
	if err != nil {
		return nil, meta, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, meta, fmt.Errorf("scan user: %w", err)
		}
		list = append(list, u)
	}
	if err := rows.Err(); err != nil {
		return nil, meta, fmt.Errorf("list users: %w", err)
	}
	return list, meta, nil
}

// FindUser returns a user by id, or by email when ref holds an "@".
func (s *AdminService) FindUser(ctx context.Context, c *answerdesk.Caller, ref string) (*answerdesk.UserDetail, error) {
	if err := c.RequireAdmin(); err != nil {
		return nil, err
	}
	id, err := s.userID(ctx, ref)
	if err != nil {
		return nil, err
	}
	u, err := scanUser(s.db.write.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("load user %d: %w", id, err)
	}
	return u, nil
}

func (s *AdminService) userID(ctx context.Context, ref string) (int64, error) {
	ref = strings.TrimSpace(ref)
	notFound := answerdesk.Errorf(answerdesk.ENOTFOUND, "no user %s", answerdesk.Quote(ref))
	var id int64
	var err error
	if strings.Contains(ref, "@") {
		err = s.db.write.QueryRowContext(ctx, `SELECT id FROM users WHERE email = ?`, answerdesk.EmailKey(ref)).Scan(&id)
	} else {
		n, ok := answerdesk.ParseID(ref)
		if !ok {
			return 0, notFound
		}
		err = s.db.write.QueryRowContext(ctx, `SELECT id FROM users WHERE id = ?`, n).Scan(&id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound
	}
	if err != nil {
		return 0, fmt.Errorf("find user %s: %w", ref, err)
	}
	return id, nil
}

// UpdateUser changes a user's memberships, admin flag, disabled state or password in one
// transaction. Disabling revokes the user's OAuth grants and signs out their web sessions;
// their API tokens stop authenticating while they are disabled.
func (s *AdminService) UpdateUser(ctx context.Context, c *answerdesk.Caller, ref string, req *answerdesk.UserUpdate) (*answerdesk.UserDetail, error) {
	if err := c.RequireAdmin(); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	id, err := s.userID(ctx, ref)
	if err != nil {
		return nil, err
	}
	// An admin cannot lock themselves out; another admin (or the command line) can.
	if id == c.UserID && req.Disabled != nil && *req.Disabled {
		return nil, answerdesk.FieldErr("disabled", "cannot be set on your own user")
	}
	if id == c.UserID && req.Admin != nil && !*req.Admin {
		return nil, answerdesk.FieldErr("admin", "cannot be taken from your own user")
	}
	var hash []byte
	if req.Password != nil {
		cost := s.users.Cost
		if cost == 0 {
			cost = bcrypt.DefaultCost
		}
		if hash, err = bcrypt.GenerateFromPassword(bcryptInput(*req.Password), cost); err != nil {
			return nil, fmt.Errorf("hash password: %w", err)
		}
	}
	now := s.db.now().UnixMilli()
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		if req.Accounts != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM memberships WHERE user_id = ?`, id); err != nil {
				return fmt.Errorf("clear memberships: %w", err)
			}
			if err := addMemberships(ctx, tx, id, *req.Accounts, "accounts"); err != nil {
				return err
			}
		}
		if req.Admin != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE users SET admin = ? WHERE id = ?`, *req.Admin, id); err != nil {
				return fmt.Errorf("set admin: %w", err)
			}
		}
		if hash != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, string(hash), id); err != nil {
				return fmt.Errorf("set password: %w", err)
			}
		}
		if req.Disabled != nil && !*req.Disabled {
			if _, err := tx.ExecContext(ctx, `UPDATE users SET disabled_at = NULL WHERE id = ?`, id); err != nil {
				return fmt.Errorf("enable user: %w", err)
			}
		}
		if req.Disabled != nil && *req.Disabled {
			for _, q := range []string{
				`UPDATE users SET disabled_at = coalesce(disabled_at, ?1), last_disabled_at = ?1 WHERE id = ?2`,
				`UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, ?1) WHERE user_id = ?2`,
				`UPDATE oauth_tokens SET revoked_at = coalesce(revoked_at, ?1) WHERE grant_id IN (SELECT id FROM oauth_grants WHERE user_id = ?2)`,
				`DELETE FROM web_sessions WHERE user_id = ?2 AND CAST(?1 AS BIGINT) IS NOT NULL`,
			} {
				if _, err := tx.ExecContext(ctx, q, now, id); err != nil {
					return fmt.Errorf("disable user %d: %w", id, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.FindUser(ctx, c, strconv.FormatInt(id, 10))
}

// addMemberships makes the user a member of each account number; an unknown one is a 422
// on field.
func addMemberships(ctx context.Context, tx *sql.Tx, userID int64, numbers []string, field string) error {
	for _, num := range numbers {
		var accountID int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM accounts WHERE number = ?`, num).Scan(&accountID); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return &answerdesk.Error{Code: answerdesk.EINVALID, Message: "unknown account " + answerdesk.Quote(num),
					Hint:   "Create the account first: POST /api/v2/accounts, or answerdesk account create --number " + answerdesk.Clip(num) + " --name NAME.",
					Fields: []answerdesk.FieldError{{Field: field, Message: "no account has number " + answerdesk.Quote(num)}}}
			}
			return fmt.Errorf("find account %s: %w", num, err)
		}
		if err := addMembership(ctx, tx, userID, accountID); err != nil {
			return err
		}
	}
	return nil
}
