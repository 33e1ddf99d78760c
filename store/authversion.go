package store

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// AuthenticateTokenVersion is AuthenticateToken that also returns the data version of the
// caller's accounts (what DataVersion returns for that caller), read by the same statement:
// a cached customer API read then makes one database round trip, not two. The version is
// read in the same snapshot as the token, before the response is built, so a body is never
// older than the version that keys it.
func (s *TokenService) AuthenticateTokenVersion(ctx context.Context, plain string) (*answerdesk.Caller, int64, error) {
	return s.authenticate(ctx, plain, true)
}

// The token lookup: token, user and memberships in one query, since it runs on every API
// request; with the data version of the user's accounts (every account for an admin, as
// visibility has it) when asked.
const (
	tokenQueryHead = `SELECT t.id, t.hash, t.last_used_at, t.revoked_at, t.scopes, u.id, u.email, u.admin,
			(SELECT group_concat(account_id) FROM memberships WHERE user_id = u.id)`
	tokenQueryVersion = `,
			CASE WHEN u.admin <> 0 THEN (SELECT coalesce(sum(version), 0) FROM data_versions)
			ELSE (SELECT coalesce(sum(d.version), 0) FROM memberships m JOIN data_versions d ON d.account_id = m.account_id
				WHERE m.user_id = u.id) END`
	// tokenQueryAuth reads the auth version with the token, for db.probe (PostgreSQL).
	tokenQueryAuth = `,
			(SELECT version FROM auth_version WHERE id = 1)`
	tokenQueryTail = `
		FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND u.disabled_at IS NULL`
)

// authenticate is AuthenticateToken, with the data version when withVersion is set. On
// SQLite a lookup is served from db.tokens while the database is unchanged since it was
// made (tokencache.go); on PostgreSQL from db.probe while the auth version is unchanged
// (versionprobe.go). Either way the token's last use is still recorded each
// lastUsedGranularity.
func (s *TokenService) authenticate(ctx context.Context, plain string, withVersion bool) (*answerdesk.Caller, int64, error) {
	if !answerdesk.ValidTokenFormat(plain) {
		return nil, 0, unauthorizedToken()
	}
	hash := answerdesk.HashToken(plain)
	vp := s.db.probe
	if vp != nil {
		if e, ok := vp.entry(hash); ok && s.db.now().Sub(time.UnixMilli(e.lastUsed)) < lastUsedGranularity {
			// A failed probe only costs the cache: the lookup below still answers.
			if auth, version, err := vp.versions(&e.caller); err == nil && auth == e.auth {
				c := e.caller
				c.AccountIDs = slices.Clone(c.AccountIDs)
				return &c, version, nil
			}
		}
		withVersion = true // one entry serves both kinds of lookup
	}
	tc := s.db.tokens
	var (
		probe  probeVersion
		cached bool
	)
	if tc != nil {
		var err error
		if probe, err = tc.dataVersion(); err == nil {
			cached = true
			if e, ok := tc.get(hash, probe); ok && s.db.now().Sub(time.UnixMilli(e.lastUsed)) < lastUsedGranularity {
				c := e.caller                             // a copy per request: callers are not shared between requests,
				c.AccountIDs = slices.Clone(c.AccountIDs) // nor are their slices
				return &c, e.version, nil
			}
		}
		// A failed probe only costs the cache: the lookup below still answers.
		withVersion = withVersion || cached // one entry serves both kinds of lookup
	}
	var (
		c         answerdesk.Caller
		stored    []byte
		lastUsed  *int64
		revokedAt *int64
		accounts  *string
		scopes    *string
		version   int64
		auth      int64
	)
	dest := []any{&c.TokenID, &stored, &lastUsed, &revokedAt, &scopes, &c.UserID, &c.Email, &c.Admin, &accounts}
	query := tokenQueryHead
	if withVersion {
		query += tokenQueryVersion
		dest = append(dest, &version)
	}
	if vp != nil {
		query += tokenQueryAuth
		dest = append(dest, &auth)
	}
	query += tokenQueryTail
	err := s.db.rd.QueryRowContext(ctx, query, hash).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, unauthorizedToken()
	}
	if err != nil {
		return nil, 0, fmt.Errorf("find token: %w", err)
	}
	if subtle.ConstantTimeCompare(stored, hash) != 1 || revokedAt != nil {
		return nil, 0, unauthorizedToken()
	}
	if c.AccountIDs, err = parseAccountIDs(accounts); err != nil {
		return nil, 0, err
	}
	c.Scopes = answerdesk.AllScopes
	if scopes != nil {
		// A narrowed token has its scopes and no more: not even its user's admin rights,
		// so that a phone system's credential can never provision anything.
		c.Scopes, c.Admin = strings.Fields(*scopes), false
	}
	now := s.db.now()
	if lastUsed == nil || now.Sub(time.UnixMilli(*lastUsed)) >= lastUsedGranularity {
		if _, err := s.db.write.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, now.UnixMilli(), c.TokenID); err != nil {
			return nil, 0, fmt.Errorf("record token use: %w", err)
		}
		// This write is itself a commit: the entry below is stale at the next probe, and
		// the next lookup (which then finds last_used_at fresh) makes the lasting one.
		lastUsed = new(int64)
		*lastUsed = now.UnixMilli()
	}
	if cached {
		tc.put(hash, tokenEntry{probe: probe, caller: c, version: version, lastUsed: *lastUsed})
	}
	if vp != nil {
		e := probeEntry{caller: c, auth: auth, lastUsed: *lastUsed}
		e.caller.AccountIDs = slices.Clone(c.AccountIDs)
		vp.put(hash, e)
	}
	return &c, version, nil
}

func unauthorizedToken() error {
	return answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "missing or invalid bearer token")
}
