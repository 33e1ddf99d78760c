package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"golang.org/x/crypto/bcrypt"
)

// UserService implements answerdesk.UserService.
type UserService struct {
	db *DB
	// Cost is the bcrypt cost of new password hashes; 0 means bcrypt.DefaultCost. Tests
	// lower it: under the race detector the default costs a second per user.
	Cost int
}

// NewUserService returns the user service over db.
func NewUserService(db *DB) *UserService { return &UserService{db: db} }

var _ answerdesk.UserService = (*UserService)(nil)

// bcryptInput is what bcrypt hashes for a password. bcrypt takes at most 72 bytes (and
// refuses more), while a password may have up to MaxPasswordLength characters of up to 4
// bytes: a longer one is hashed as the base64 of its SHA-256 (44 bytes, no NUL), so every
// byte of it counts. Passwords of up to 72 bytes are hashed as they are, as they always
// were, so stored hashes stay valid.
func bcryptInput(password string) []byte {
	if len(password) <= 72 {
		return []byte(password)
	}
	sum := sha256.Sum256([]byte(password))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// dummyHash is compared against when an email is unknown, so a sign-in takes as long for an
// unknown user as for a wrong password.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("answerdesk-timing-equaliser"), bcrypt.DefaultCost)

// CreateUser creates a user with a bcrypt password hash and its account memberships.
func (s *UserService) CreateUser(ctx context.Context, u *answerdesk.UserCreate) (*answerdesk.User, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	// Without a password the stored hash is empty, which no password matches: the user
	// cannot sign in on the web until one is set, while API tokens work.
	var hash []byte
	if u.Password != "" {
		cost := s.Cost
		if cost == 0 {
			cost = bcrypt.DefaultCost
		}
		var err error
		if hash, err = bcrypt.GenerateFromPassword(bcryptInput(u.Password), cost); err != nil {
			return nil, fmt.Errorf("hash password: %w", err)
		}
	}
	now := s.db.now()
	user := &answerdesk.User{Email: u.Email, Admin: u.Admin, CreatedAt: answerdesk.NewTime(now)}
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO users (email, password_hash, admin, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			u.Email, string(hash), u.Admin, now.UnixMilli()).Scan(&user.ID)
		if err != nil {
			if isUnique(err) {
				return answerdesk.FieldErr("email", "is taken by another user")
			}
			return fmt.Errorf("insert user: %w", err)
		}
		return addMemberships(ctx, tx, user.ID, u.AccountNumbers, "accounts")
	})
	if err != nil {
		return nil, err
	}
	return user, nil
}

// FindUserByEmail returns the user with the email, or ENOTFOUND.
func (s *UserService) FindUserByEmail(ctx context.Context, email string) (*answerdesk.User, error) {
	u, _, err := s.findByEmail(ctx, email)
	return u, err
}

func (s *UserService) findByEmail(ctx context.Context, email string) (*answerdesk.User, string, error) {
	var u answerdesk.User
	var hash string
	var created int64
	var disabled *int64
	err := s.db.rd.QueryRowContext(ctx, `SELECT id, email, admin, created_at, password_hash, disabled_at FROM users WHERE email = ?`,
		answerdesk.EmailKey(email)).Scan(&u.ID, &u.Email, &u.Admin, &created, &hash, &disabled)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", answerdesk.Errorf(answerdesk.ENOTFOUND, "no user with email %s", email)
	}
	if err != nil {
		return nil, "", fmt.Errorf("find user %s: %w", email, err)
	}
	u.CreatedAt = fromMS(created)
	if disabled != nil {
		hash = "" // a disabled user cannot sign in: no password matches an empty hash
	}
	return &u, hash, nil
}

// CheckPassword returns the user when the password matches; the comparison costs the same
// whether or not the email exists.
func (s *UserService) CheckPassword(ctx context.Context, email, password string) (*answerdesk.User, error) {
	u, hash, err := s.findByEmail(ctx, email)
	if err != nil && answerdesk.ErrorCode(err) != answerdesk.ENOTFOUND {
		return nil, err
	}
	if u == nil {
		_ = bcrypt.CompareHashAndPassword(dummyHash, bcryptInput(password))
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "wrong email or password")
	}
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash, bcryptInput(password))
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "wrong email or password")
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), bcryptInput(password)) != nil {
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "wrong email or password")
	}
	return u, nil
}

// TokenService implements answerdesk.TokenService.
type TokenService struct{ db *DB }

// NewTokenService returns the token service over db.
func NewTokenService(db *DB) *TokenService { return &TokenService{db: db} }

var _ answerdesk.TokenService = (*TokenService)(nil)

// CreateToken makes a new token for the user; only its hash is stored.
func (s *TokenService) CreateToken(ctx context.Context, userID int64, name string) (*answerdesk.Token, string, error) {
	return s.createToken(ctx, userID, name, answerdesk.NewTokenValue())
}

// ImportToken stores a token whose plain value is given (the demo data's fixed tokens)
// unless a token with that value is stored already, revoked or not: importing it again
// changes nothing, and a revoked one stays revoked. The value must have a token's form
// (ValidTokenFormat), so that no short secret lands in the clear prefix column.
func (s *TokenService) ImportToken(ctx context.Context, userID int64, name, plain string) error {
	if !answerdesk.ValidTokenFormat(plain) {
		return answerdesk.Errorf(answerdesk.EINVALID, "an imported token must have the form %s followed by 43 URL-safe base64 characters", answerdesk.TokenPrefix)
	}
	_, _, err := s.createToken(ctx, userID, name, plain)
	if isUnique(err) { // stored already, perhaps by another replica starting at the same time
		return nil
	}
	return err
}

// CreateScopedToken makes a token narrowed to scopes.
func (s *TokenService) CreateScopedToken(ctx context.Context, userID int64, name string, scopes []string) (*answerdesk.Token, string, error) {
	if err := answerdesk.CheckTokenScopes(scopes); err != nil {
		return nil, "", err
	}
	return s.createToken(ctx, userID, name, answerdesk.NewTokenValue(), scopes...)
}

// createToken stores a token with a given plain value, narrowed to scopes when any are given.
func (s *TokenService) createToken(ctx context.Context, userID int64, name, plain string, scopes ...string) (*answerdesk.Token, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "API token"
	}
	if len(name) > 100 {
		return nil, "", &answerdesk.Error{Code: answerdesk.EINVALID, Message: "token name too long", Fields: []answerdesk.FieldError{{Field: "name", Message: "must be at most 100 characters"}}}
	}
	if !answerdesk.ValidText(name) {
		return nil, "", answerdesk.FieldErr("name", answerdesk.InvalidTextMessage)
	}
	now := s.db.now()
	t := &answerdesk.Token{UserID: userID, Name: name, Prefix: answerdesk.TokenDisplayPrefix(plain), CreatedAt: answerdesk.NewTime(now)}
	var narrowed any
	if len(scopes) > 0 {
		t.Scopes, narrowed = scopes, strings.Join(scopes, " ")
	}
	err := s.db.write.QueryRowContext(ctx, `INSERT INTO api_tokens (user_id, name, hash, prefix, created_at, scopes) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		userID, name, answerdesk.HashToken(plain), t.Prefix, now.UnixMilli(), narrowed).Scan(&t.ID)
	if err != nil {
		if isForeignKey(err) {
			return nil, "", answerdesk.Errorf(answerdesk.ENOTFOUND, "no user %d", userID)
		}
		return nil, "", fmt.Errorf("insert token: %w", err)
	}
	return t, plain, nil
}

// ListTokens returns the user's tokens (every token when userID is 0), newest first.
func (s *TokenService) ListTokens(ctx context.Context, userID int64) ([]*answerdesk.Token, error) {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT t.id, t.user_id, u.email, t.name, t.prefix, t.created_at, t.last_used_at, t.revoked_at, t.scopes
		FROM api_tokens t JOIN users u ON u.id = t.user_id
		WHERE ? = 0 OR t.user_id = ? ORDER BY t.created_at DESC, t.id DESC`, userID, userID)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var out []*answerdesk.Token
	for rows.Next() {
		var t answerdesk.Token
		var created int64
		var used, revoked *int64
		var scopes *string
		if err := rows.Scan(&t.ID, &t.UserID, &t.UserEmail, &t.Name, &t.Prefix, &created, &used, &revoked, &scopes); err != nil {
			return nil, fmt.Errorf("scan token: %w", err)
		}
		if scopes != nil {
			t.Scopes = strings.Fields(*scopes)
		}
		t.CreatedAt, t.LastUsedAt, t.RevokedAt = fromMS(created), msPtr(used), msPtr(revoked)
		out = append(out, &t)
	}
	return out, rows.Err()
}

// RevokeToken revokes the token; when userID is not 0 it must be that user's token.
func (s *TokenService) RevokeToken(ctx context.Context, userID, tokenID int64) error {
	res, err := s.db.write.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?)
		WHERE id = ? AND (? = 0 OR user_id = ?)`, s.db.now().UnixMilli(), tokenID, userID, userID)
	if err != nil {
		return fmt.Errorf("revoke token %d: %w", tokenID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return answerdesk.Errorf(answerdesk.ENOTFOUND, "no token %d", tokenID)
	}
	return nil
}

// lastUsedGranularity bounds how often last_used_at is written: a busy integration would
// otherwise turn every read into a write.
const lastUsedGranularity = time.Minute

// AuthenticateToken returns the caller of a plain token, or EUNAUTHORIZED.
func (s *TokenService) AuthenticateToken(ctx context.Context, plain string) (*answerdesk.Caller, error) {
	c, _, err := s.authenticate(ctx, plain, false)
	return c, err
}

// parseAccountIDs parses the group_concat of a user's memberships (nil: none), sorted.
func parseAccountIDs(accounts *string) ([]int64, error) {
	if accounts == nil {
		return nil, nil
	}
	var ids []int64
	for _, f := range strings.Split(*accounts, ",") {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parse memberships %q: %w", *accounts, err)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// CallerForUser returns the caller a signed-in user stands for, with the given scopes.
func (db *DB) CallerForUser(ctx context.Context, userID int64, scopes []string) (*answerdesk.Caller, error) {
	c := answerdesk.Caller{UserID: userID, Scopes: scopes}
	var accounts *string
	err := db.rd.QueryRowContext(ctx, `SELECT email, admin, (SELECT group_concat(account_id) FROM memberships WHERE user_id = users.id)
		FROM users WHERE id = ?`, userID).Scan(&c.Email, &c.Admin, &accounts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "the user no longer exists")
	}
	if err != nil {
		return nil, fmt.Errorf("load user %d: %w", userID, err)
	}
	if c.AccountIDs, err = parseAccountIDs(accounts); err != nil {
		return nil, err
	}
	return &c, nil
}
