package answerdesk

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"slices"
	"strings"
	"time"
)

// Lifetimes of what the authorization server issues.
const (
	AuthorizationCodeTTL = 10 * time.Minute
	AccessTokenTTL       = time.Hour
	RefreshTokenTTL      = 30 * 24 * time.Hour
	SessionTTL           = 12 * time.Hour
	// RefreshReuseGrace is how long after its rotation a refresh token presented again is
	// refused without revoking its grant: a client that refreshes from two requests at once
	// (both saw the access token expire) should not lose its authorization for it.
	RefreshReuseGrace = 10 * time.Second
)

// Prefixes of OAuth values, so a leaked one is recognisable and a bearer is routed to the
// right check without a database round trip.
const (
	AccessTokenPrefix  = "aat_"
	RefreshTokenPrefix = "art_"
	AuthCodePrefix     = "aac_"
	ClientSecretPrefix = "acs_"
)

// NewSecret returns prefix and 43 URL-safe base64 characters (256 random bits).
func NewSecret(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// ValidSecretFormat reports whether s has the form NewSecret(prefix) gives, so that a value
// of the wrong form is refused without a database lookup.
func ValidSecretFormat(s, prefix string) bool {
	if len(s) != len(prefix)+43 || !strings.HasPrefix(s, prefix) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s[len(prefix):])
	return err == nil
}

// Client authentication methods at the token endpoint.
const (
	AuthMethodNone        = "none"
	AuthMethodSecretBasic = "client_secret_basic"
	AuthMethodSecretPost  = "client_secret_post"
)

// OAuthClient is an application that asks users for access, usually an MCP client.
type OAuthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	ClientURI    string
	LogoURI      string
	AuthMethod   string
	SecretHash   []byte // nil for public clients
	// Metadata is true when ID is the https URL of a client ID metadata document; the
	// stored copy is fetched again after RefreshAfter.
	Metadata     bool
	CreatedAt    time.Time
	RefreshAfter time.Time
}

// OAuthGrant is one authorization a user gave a client: every token issued from one
// authorization code descends from it, and revoking it revokes them all.
type OAuthGrant struct {
	ID         int64    `json:"id"`
	UserID     int64    `json:"user_id"`
	UserEmail  string   `json:"user_email"`
	ClientID   string   `json:"client_id"`
	ClientName string   `json:"client_name"`
	Scopes     []string `json:"scopes"`
	Resource   string   `json:"resource"`
	CreatedAt  Time     `json:"created_at"`
	LastUsedAt *Time    `json:"last_used_at"`
}

// AuthorizationCode is what a code stands for, as stored when the user consents.
type AuthorizationCode struct {
	Hash          []byte
	ClientID      string
	UserID        int64
	RedirectURI   string
	CodeChallenge string // S256 of the verifier, base64url
	Scopes        []string
	Resource      string
	ExpiresAt     time.Time
}

// IssuedToken is a token to store: its hash and expiry.
type IssuedToken struct {
	Hash      []byte
	ExpiresAt time.Time
}

// AccessToken is what a valid OAuth access token stands for.
type AccessToken struct {
	Caller   *Caller
	Resource string
	GrantID  int64
}

// OAuthStore keeps clients, codes, grants and tokens. Its methods make the state changes
// atomic (a code is redeemed once, a refresh token rotates once); the protocol rules live
// in package oauth.
type OAuthStore interface {
	// SaveClient inserts or replaces a client.
	SaveClient(ctx context.Context, c *OAuthClient) error
	// FindClient returns the client, or ENOTFOUND.
	FindClient(ctx context.Context, id string) (*OAuthClient, error)
	// SaveCode stores a new authorization code.
	SaveCode(ctx context.Context, c *AuthorizationCode) error
	// RedeemCode marks the code used and returns it. A code used before is EUNAUTHORIZED,
	// and the grant it issued is revoked (RFC 6749 §4.1.2: a replayed code may be stolen).
	RedeemCode(ctx context.Context, hash []byte) (*AuthorizationCode, error)
	// CreateGrant records the grant of a redeemed code with its first access and refresh
	// tokens. If the code was replayed in the meantime nothing is created: EUNAUTHORIZED.
	CreateGrant(ctx context.Context, code *AuthorizationCode, access, refresh IssuedToken) (*OAuthGrant, error)
	// RotateRefreshToken exchanges a refresh token of clientID for new tokens. A refresh
	// token presented a second time, later than RefreshReuseGrace after its rotation,
	// revokes its grant and every token of it; within the grace it is only refused. An
	// unknown, expired or revoked one is EUNAUTHORIZED.
	// Scopes asked for (RFC 6749 §6) must be among the grant's, or the answer is EINVALID and
	// nothing rotates; when given, the new access token carries only those (the grant and
	// the new refresh token keep the grant's).
	RotateRefreshToken(ctx context.Context, hash []byte, clientID string, scopes []string, access, refresh IssuedToken) (*OAuthGrant, error)
	// AuthenticateAccessToken returns what a plain access token stands for, or EUNAUTHORIZED.
	AuthenticateAccessToken(ctx context.Context, plain string) (*AccessToken, error)
	// RevokeToken revokes the access or refresh token of clientID with that hash (a refresh
	// token takes its grant with it). Unknown tokens are not an error (RFC 7009 §2.2).
	RevokeToken(ctx context.Context, hash []byte, clientID string) error
	// ListGrants returns the user's live grants, or everyone's when userID is 0.
	ListGrants(ctx context.Context, userID int64) ([]*OAuthGrant, error)
	// RevokeGrant revokes a grant; userID 0 revokes any user's.
	RevokeGrant(ctx context.Context, userID, grantID int64) error
}

// Session is a signed-in browser: the user and the CSRF token its forms carry.
type Session struct {
	UserID    int64
	Email     string
	Admin     bool
	CSRF      string
	ExpiresAt time.Time
}

// ValidCSRF reports whether a form's CSRF token is the session's, in constant time.
func (s *Session) ValidCSRF(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.CSRF)) == 1
}

// SessionService keeps web sign-in sessions. The plain session id lives only in the cookie.
type SessionService interface {
	// CreateSession signs the user in and returns the plain session id for the cookie.
	CreateSession(ctx context.Context, userID int64) (string, *Session, error)
	// FindSession returns the live session of a plain id, or EUNAUTHORIZED.
	FindSession(ctx context.Context, plain string) (*Session, error)
	// DeleteSession signs the session out.
	DeleteSession(ctx context.Context, plain string) error
}

// ParseScopes splits a space-separated scope string, dropping duplicates. Unknown scopes
// are returned in unknown.
func ParseScopes(s string) (scopes, unknown []string) {
	seen := map[string]bool{}
	for _, f := range strings.Fields(s) {
		if seen[f] {
			continue
		}
		seen[f] = true
		if slices.Contains(AllScopes, f) {
			scopes = append(scopes, f)
		} else {
			unknown = append(unknown, f)
		}
	}
	return scopes, unknown
}

// ScopeDescriptions say what each scope lets a client do, for the consent page.
var ScopeDescriptions = map[string]string{
	ScopeMessagesRead:   "Read your messages",
	ScopeMessagesWrite:  "Create messages, acknowledge them and mark them read or unread",
	ScopeRecordingsRead: "Listen to call recordings and read their call details",
	ScopeTodosRead:      "Read your To Dos",
	ScopeTodosWrite:     "Create To Dos (scheduled SMS, emails and calls)",
}

// ExpiredPurger deletes what has expired: authorization codes, OAuth tokens, grants left
// without tokens, and web sessions.
type ExpiredPurger interface {
	PurgeExpired(ctx context.Context, now time.Time) (int64, error)
}
