package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// OAuthStore implements answerdesk.OAuthStore.
type OAuthStore struct{ db *DB }

// NewOAuthStore returns the OAuth store over db.
func NewOAuthStore(db *DB) *OAuthStore { return &OAuthStore{db: db} }

var _ answerdesk.OAuthStore = (*OAuthStore)(nil)

// invalidGrant is what every failed code or refresh token exchange returns: the token
// endpoint answers invalid_grant without saying which check failed.
func invalidGrant(msg string) error { return answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "%s", msg) }

// SaveClient inserts or replaces a client.
func (s *OAuthStore) SaveClient(ctx context.Context, c *answerdesk.OAuthClient) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return fmt.Errorf("encode redirect uris: %w", err)
	}
	kind := "registered"
	if c.Metadata {
		kind = "metadata"
	}
	var refresh *int64
	if !c.RefreshAfter.IsZero() {
		ms := c.RefreshAfter.UnixMilli()
		refresh = &ms
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.db.now()
	}
	_, err = s.db.write.ExecContext(ctx, `INSERT INTO oauth_clients (id, kind, name, redirect_uris, client_uri, logo_uri, auth_method, secret_hash, created_at, refresh_after)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name, redirect_uris = excluded.redirect_uris,
			client_uri = excluded.client_uri, logo_uri = excluded.logo_uri, auth_method = excluded.auth_method,
			secret_hash = excluded.secret_hash, refresh_after = excluded.refresh_after`,
		c.ID, kind, c.Name, string(uris), c.ClientURI, c.LogoURI, c.AuthMethod, c.SecretHash, c.CreatedAt.UnixMilli(), refresh)
	if err != nil {
		return fmt.Errorf("save client %s: %w", c.ID, err)
	}
	return nil
}

// FindClient returns the client with the id, or ENOTFOUND.
func (s *OAuthStore) FindClient(ctx context.Context, id string) (*answerdesk.OAuthClient, error) {
	var (
		c       answerdesk.OAuthClient
		kind    string
		uris    string
		created int64
		refresh *int64
	)
	err := s.db.rd.QueryRowContext(ctx, `SELECT id, kind, name, redirect_uris, client_uri, logo_uri, auth_method, secret_hash, created_at, refresh_after
		FROM oauth_clients WHERE id = ?`, id).
		Scan(&c.ID, &kind, &c.Name, &uris, &c.ClientURI, &c.LogoURI, &c.AuthMethod, &c.SecretHash, &created, &refresh)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.ENOTFOUND, "no client %s", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find client %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return nil, fmt.Errorf("decode redirect uris of client %s: %w", id, err)
	}
	c.Metadata = kind == "metadata"
	c.CreatedAt = time.UnixMilli(created).UTC()
	if refresh != nil {
		c.RefreshAfter = time.UnixMilli(*refresh).UTC()
	}
	return &c, nil
}

// SaveCode stores a new authorization code.
func (s *OAuthStore) SaveCode(ctx context.Context, c *answerdesk.AuthorizationCode) error {
	_, err := s.db.write.ExecContext(ctx, `INSERT INTO oauth_codes (hash, client_id, user_id, redirect_uri, code_challenge, scopes, resource, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Hash, c.ClientID, c.UserID, c.RedirectURI, c.CodeChallenge, strings.Join(c.Scopes, " "), c.Resource, s.db.now().UnixMilli(), c.ExpiresAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("save authorization code: %w", err)
	}
	return nil
}

// RedeemCode marks the code used and returns it; a second use revokes what it issued.
func (s *OAuthStore) RedeemCode(ctx context.Context, hash []byte) (*answerdesk.AuthorizationCode, error) {
	var (
		c       answerdesk.AuthorizationCode
		scopes  string
		expires int64
		used    *int64
		grantID *int64
		replay  bool
	)
	now := s.db.now().UnixMilli()
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT hash, client_id, user_id, redirect_uri, code_challenge, scopes, resource, expires_at, used_at, grant_id
			FROM oauth_codes WHERE hash = ?`, hash).
			Scan(&c.Hash, &c.ClientID, &c.UserID, &c.RedirectURI, &c.CodeChallenge, &scopes, &c.Resource, &expires, &used, &grantID)
		if errors.Is(err, sql.ErrNoRows) {
			return invalidGrant("unknown authorization code")
		}
		if err != nil {
			return fmt.Errorf("find authorization code: %w", err)
		}
		if used != nil {
			replay = true
			if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET reused_at = coalesce(reused_at, ?) WHERE hash = ?`, now, hash); err != nil {
				return fmt.Errorf("mark code reused: %w", err)
			}
			if grantID != nil {
				return revokeGrantTx(ctx, tx, *grantID, now)
			}
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_codes SET used_at = ? WHERE hash = ?`, now, hash)
		if err != nil {
			return fmt.Errorf("mark code used: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if replay {
		return nil, invalidGrant("authorization code already used; the tokens it issued are revoked")
	}
	c.Scopes = strings.Fields(scopes)
	c.ExpiresAt = time.UnixMilli(expires).UTC()
	return &c, nil
}

// CreateGrant records the grant of a redeemed code with its first tokens.
func (s *OAuthStore) CreateGrant(ctx context.Context, code *answerdesk.AuthorizationCode, access, refresh answerdesk.IssuedToken) (*answerdesk.OAuthGrant, error) {
	now := s.db.now().UnixMilli()
	var g *answerdesk.OAuthGrant
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		var reused *int64
		if err := tx.QueryRowContext(ctx, `SELECT reused_at FROM oauth_codes WHERE hash = ?`, code.Hash).Scan(&reused); err != nil {
			return fmt.Errorf("reload authorization code: %w", err)
		}
		if reused != nil { // replayed between redeem and now: issue nothing
			return invalidGrant("authorization code already used")
		}
		// A user disabled after approving: disabling revoked their grants, and this code
		// must not make a new one (it would work again if they were enabled later).
		// So must a code approved before the user's last disable, once they are enabled
		// again: disabling them revoked every grant, and the docs promise that OAuth clients
		// must be authorized again.
		var disabled, lastDisabled *int64
		var issued int64
		if err := tx.QueryRowContext(ctx, `SELECT u.disabled_at, u.last_disabled_at, c.created_at FROM users u, oauth_codes c
			WHERE u.id = ? AND c.hash = ?`, code.UserID, code.Hash).Scan(&disabled, &lastDisabled, &issued); err != nil {
			return fmt.Errorf("load user of authorization code: %w", err)
		}
		if disabled != nil {
			return invalidGrant("the user who approved this code is disabled")
		}
		if lastDisabled != nil && issued <= *lastDisabled {
			return invalidGrant("the user who approved this code was disabled since; authorize again")
		}
		var id int64
		err := tx.QueryRowContext(ctx, `INSERT INTO oauth_grants (user_id, client_id, scopes, resource, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			code.UserID, code.ClientID, strings.Join(code.Scopes, " "), code.Resource, now, now).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert grant: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET grant_id = ? WHERE hash = ?`, id, code.Hash); err != nil {
			return fmt.Errorf("link code to grant: %w", err)
		}
		if err := insertTokens(ctx, tx, id, now, access, refresh, nil); err != nil {
			return err
		}
		g = &answerdesk.OAuthGrant{ID: id, UserID: code.UserID, ClientID: code.ClientID, Scopes: code.Scopes, Resource: code.Resource, CreatedAt: fromMS(now)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// insertTokens stores an access and a refresh token of a grant. accessScopes, when not
// empty, narrows the access token to those scopes (a refresh asking for less, RFC 6749 §6);
// the refresh token always keeps the grant's.
func insertTokens(ctx context.Context, tx *sql.Tx, grantID, now int64, access, refresh answerdesk.IssuedToken, accessScopes []string) error {
	var narrowed *string
	if len(accessScopes) > 0 {
		v := strings.Join(accessScopes, " ")
		narrowed = &v
	}
	for _, t := range []struct {
		kind   string
		tok    answerdesk.IssuedToken
		scopes *string
	}{{"access", access, narrowed}, {"refresh", refresh, nil}} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, grant_id, kind, created_at, expires_at, scopes) VALUES (?, ?, ?, ?, ?, ?)`,
			t.tok.Hash, grantID, t.kind, now, t.tok.ExpiresAt.UnixMilli(), t.scopes); err != nil {
			return fmt.Errorf("insert %s token: %w", t.kind, err)
		}
	}
	return nil
}

// revokeGrantTx revokes a grant. Its tokens are not touched: every check of a token also
// checks its grant.
func revokeGrantTx(ctx context.Context, tx *sql.Tx, grantID, now int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, now, grantID); err != nil {
		return fmt.Errorf("revoke grant %d: %w", grantID, err)
	}
	return nil
}

// RotateRefreshToken exchanges a refresh token for new tokens, once.
func (s *OAuthStore) RotateRefreshToken(ctx context.Context, hash []byte, clientID string, want []string, access, refresh answerdesk.IssuedToken) (*answerdesk.OAuthGrant, error) {
	now := s.db.now().UnixMilli()
	var (
		g      answerdesk.OAuthGrant
		replay bool
	)
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		var (
			expires                   int64
			rotated, revoked, grevoke *int64
			scopes                    string
			created                   int64
		)
		err := tx.QueryRowContext(ctx, `SELECT t.expires_at, t.rotated_at, t.revoked_at, g.id, g.user_id, g.client_id, g.scopes, g.resource, g.created_at, g.revoked_at
			FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ? AND t.kind = 'refresh'`, hash).
			Scan(&expires, &rotated, &revoked, &g.ID, &g.UserID, &g.ClientID, &scopes, &g.Resource, &created, &grevoke)
		if errors.Is(err, sql.ErrNoRows) {
			return invalidGrant("unknown refresh token")
		}
		if err != nil {
			return fmt.Errorf("find refresh token: %w", err)
		}
		if subtle.ConstantTimeCompare([]byte(g.ClientID), []byte(clientID)) != 1 {
			return invalidGrant("the refresh token was issued to another client")
		}
		if rotated != nil && grevoke == nil && now-*rotated < answerdesk.RefreshReuseGrace.Milliseconds() {
			return invalidGrant("the refresh token was just used; use the tokens that answer returned")
		}
		if rotated != nil && grevoke == nil {
			// RFC 9700 §4.14.2: a rotated refresh token presented again means one of two
			// parties holds a stolen copy; revoke the family so neither keeps access.
			replay = true
			return revokeGrantTx(ctx, tx, g.ID, now)
		}
		if rotated != nil || revoked != nil || grevoke != nil {
			return invalidGrant("the refresh token is revoked")
		}
		if now >= expires {
			return invalidGrant("the refresh token has expired")
		}
		granted := strings.Fields(scopes)
		for _, sc := range want {
			if !slices.Contains(granted, sc) {
				return answerdesk.Errorf(answerdesk.EINVALID, "the scope %s was not granted", sc)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET rotated_at = ? WHERE hash = ?`, now, hash); err != nil {
			return fmt.Errorf("rotate refresh token: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET last_used_at = ? WHERE id = ?`, now, g.ID); err != nil {
			return fmt.Errorf("touch grant: %w", err)
		}
		g.Scopes = granted
		g.CreatedAt = fromMS(created)
		return insertTokens(ctx, tx, g.ID, now, access, refresh, want)
	})
	if err != nil {
		return nil, err
	}
	if replay {
		return nil, invalidGrant("refresh token reused; every token of this grant is revoked")
	}
	return &g, nil
}

// AuthenticateAccessToken returns what a plain access token stands for.
func (s *OAuthStore) AuthenticateAccessToken(ctx context.Context, plain string) (*answerdesk.AccessToken, error) {
	unauthorized := answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "missing, expired or revoked access token")
	if !answerdesk.ValidSecretFormat(plain, answerdesk.AccessTokenPrefix) {
		return nil, unauthorized
	}
	hash := answerdesk.HashToken(plain)
	var (
		at                answerdesk.AccessToken
		c                 answerdesk.Caller
		stored            []byte
		expires           int64
		revoked, grevoked *int64
		lastUsed          *int64
		scopes            string
		tokenScopes       *string
		accounts          *string
	)
	err := s.db.rd.QueryRowContext(ctx, `SELECT t.hash, t.expires_at, t.revoked_at, t.scopes, g.id, g.revoked_at, g.last_used_at, g.scopes, g.resource, u.id, u.email, u.admin,
			(SELECT group_concat(account_id) FROM memberships WHERE user_id = u.id)
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN users u ON u.id = g.user_id
		WHERE t.hash = ? AND t.kind = 'access' AND u.disabled_at IS NULL`, hash).
		Scan(&stored, &expires, &revoked, &tokenScopes, &at.GrantID, &grevoked, &lastUsed, &scopes, &at.Resource, &c.UserID, &c.Email, &c.Admin, &accounts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unauthorized
	}
	if err != nil {
		return nil, fmt.Errorf("find access token: %w", err)
	}
	now := s.db.now()
	if subtle.ConstantTimeCompare(stored, hash) != 1 || revoked != nil || grevoked != nil || now.UnixMilli() >= expires {
		return nil, unauthorized
	}
	if c.AccountIDs, err = parseAccountIDs(accounts); err != nil {
		return nil, err
	}
	c.Scopes = strings.Fields(scopes)
	if tokenScopes != nil {
		// A narrowed access token carries only its own scopes, never more than the grant's.
		narrowed := strings.Fields(*tokenScopes)
		c.Scopes = slices.DeleteFunc(c.Scopes, func(sc string) bool { return !slices.Contains(narrowed, sc) })
	}
	at.Caller = &c
	if lastUsed == nil || now.Sub(time.UnixMilli(*lastUsed)) >= lastUsedGranularity {
		if _, err := s.db.write.ExecContext(ctx, `UPDATE oauth_grants SET last_used_at = ? WHERE id = ?`, now.UnixMilli(), at.GrantID); err != nil {
			return nil, fmt.Errorf("record grant use: %w", err)
		}
	}
	return &at, nil
}

// RevokeToken revokes an access or refresh token of clientID; a refresh token takes its
// grant with it.
func (s *OAuthStore) RevokeToken(ctx context.Context, hash []byte, clientID string) error {
	now := s.db.now().UnixMilli()
	return s.db.tx(ctx, func(tx *sql.Tx) error {
		var (
			kind    string
			grantID int64
			owner   string
		)
		err := tx.QueryRowContext(ctx, `SELECT t.kind, t.grant_id, g.client_id FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ?`, hash).
			Scan(&kind, &grantID, &owner)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("find token to revoke: %w", err)
		}
		if owner != clientID {
			return answerdesk.Errorf(answerdesk.EFORBIDDEN, "the token was issued to another client")
		}
		if kind == "refresh" {
			return revokeGrantTx(ctx, tx, grantID, now)
		}
		_, err = tx.ExecContext(ctx, `UPDATE oauth_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE hash = ?`, now, hash)
		if err != nil {
			return fmt.Errorf("revoke access token: %w", err)
		}
		return nil
	})
}

// ListGrants returns live grants (not revoked, with a refresh token that has not expired),
// the user's or everyone's when userID is 0, newest first.
func (s *OAuthStore) ListGrants(ctx context.Context, userID int64) ([]*answerdesk.OAuthGrant, error) {
	rows, err := s.db.rd.QueryContext(ctx, `SELECT g.id, g.user_id, u.email, g.client_id, c.name, g.scopes, g.resource, g.created_at, g.last_used_at
		FROM oauth_grants g JOIN users u ON u.id = g.user_id JOIN oauth_clients c ON c.id = g.client_id
		WHERE (? = 0 OR g.user_id = ?) AND g.revoked_at IS NULL
			AND EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = g.id AND t.kind = 'refresh' AND t.rotated_at IS NULL AND t.revoked_at IS NULL AND t.expires_at > ?)
		ORDER BY g.created_at DESC, g.id DESC`, userID, userID, s.db.now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	defer rows.Close()
	var out []*answerdesk.OAuthGrant
	for rows.Next() {
		var (
			g       answerdesk.OAuthGrant
			scopes  string
			created int64
			used    *int64
		)
		if err := rows.Scan(&g.ID, &g.UserID, &g.UserEmail, &g.ClientID, &g.ClientName, &scopes, &g.Resource, &created, &used); err != nil {
			return nil, fmt.Errorf("scan grant: %w", err)
		}
		g.Scopes, g.CreatedAt, g.LastUsedAt = strings.Fields(scopes), fromMS(created), msPtr(used)
		out = append(out, &g)
	}
	return out, rows.Err()
}

// RevokeGrant revokes a grant and its tokens; when userID is not 0 it must be theirs.
func (s *OAuthStore) RevokeGrant(ctx context.Context, userID, grantID int64) error {
	now := s.db.now().UnixMilli()
	return s.db.tx(ctx, func(tx *sql.Tx) error {
		var owner int64
		err := tx.QueryRowContext(ctx, `SELECT user_id FROM oauth_grants WHERE id = ?`, grantID).Scan(&owner)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && userID != 0 && owner != userID) {
			return answerdesk.Errorf(answerdesk.ENOTFOUND, "no grant %d", grantID)
		}
		if err != nil {
			return fmt.Errorf("find grant %d: %w", grantID, err)
		}
		return revokeGrantTx(ctx, tx, grantID, now)
	})
}

// SessionStore implements answerdesk.SessionService.
type SessionStore struct{ db *DB }

// NewSessionStore returns the web session store over db.
func NewSessionStore(db *DB) *SessionStore { return &SessionStore{db: db} }

var _ answerdesk.SessionService = (*SessionStore)(nil)

// CreateSession signs the user in for answerdesk.SessionTTL.
func (s *SessionStore) CreateSession(ctx context.Context, userID int64) (string, *answerdesk.Session, error) {
	plain := answerdesk.NewSecret("")
	now := s.db.now()
	sess := &answerdesk.Session{UserID: userID, CSRF: answerdesk.NewSecret(""), ExpiresAt: now.Add(answerdesk.SessionTTL)}
	err := s.db.rd.QueryRowContext(ctx, `SELECT email, admin FROM users WHERE id = ?`, userID).Scan(&sess.Email, &sess.Admin)
	if err != nil {
		return "", nil, fmt.Errorf("load user %d: %w", userID, err)
	}
	err = s.db.tx(ctx, func(tx *sql.Tx) error {
		// Sign-in is a natural moment to forget expired sessions.
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE expires_at <= ?`, now.UnixMilli()); err != nil {
			return fmt.Errorf("delete expired sessions: %w", err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO web_sessions (hash, user_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			answerdesk.HashToken(plain), userID, sess.CSRF, now.UnixMilli(), sess.ExpiresAt.UnixMilli())
		if err != nil {
			return fmt.Errorf("insert session: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return plain, sess, nil
}

// FindSession returns the live session of a plain session id.
func (s *SessionStore) FindSession(ctx context.Context, plain string) (*answerdesk.Session, error) {
	var (
		sess    answerdesk.Session
		expires int64
	)
	err := s.db.rd.QueryRowContext(ctx, `SELECT s.user_id, s.csrf, s.expires_at, u.email, u.admin FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = ? AND u.disabled_at IS NULL`,
		answerdesk.HashToken(plain)).Scan(&sess.UserID, &sess.CSRF, &expires, &sess.Email, &sess.Admin)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "not signed in")
	}
	if err != nil {
		return nil, fmt.Errorf("find session: %w", err)
	}
	if s.db.now().UnixMilli() >= expires {
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "the session has expired")
	}
	sess.ExpiresAt = time.UnixMilli(expires).UTC()
	return &sess, nil
}

// DeleteSession signs a session out.
func (s *SessionStore) DeleteSession(ctx context.Context, plain string) error {
	if _, err := s.db.write.ExecContext(ctx, `DELETE FROM web_sessions WHERE hash = ?`, answerdesk.HashToken(plain)); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// PurgeExpired deletes expired codes, tokens and sessions, grants with no token left, and
// clients unused for 30 days.
// A rotated refresh token is kept until it expires, so its reuse is still recognised.
func (s *OAuthStore) PurgeExpired(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.tx(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, q := range []string{
			`DELETE FROM oauth_codes WHERE expires_at < ?`,
			`DELETE FROM oauth_tokens WHERE expires_at < ?`,
			`DELETE FROM oauth_grants WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.grant_id = oauth_grants.id)`,
			`DELETE FROM web_sessions WHERE expires_at < ?`,
			// Clients nobody has authorized for 30 days (registration is open to anyone, and
			// so is naming a metadata document): a metadata document is fetched again when
			// used, and a registered client registers again.
			`DELETE FROM oauth_clients WHERE coalesce(refresh_after, created_at) < ? - 2592000000
				AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.id)
				AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.client_id = oauth_clients.id)`,
		} {
			res, err := tx.ExecContext(ctx, q, now.UnixMilli())
			if err != nil {
				return fmt.Errorf("purge expired: %w", err)
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	return n, err
}
