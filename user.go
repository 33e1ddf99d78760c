package answerdesk

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Account is a customer account of the answering service.
type Account struct {
	ID       int64  `json:"id" jsonschema:"Account id, as in a message's account_id."`
	Number   string `json:"number" jsonschema:"Account number, as in account_number of a To Do or an on-call contact."`
	Name     string `json:"name"`
	TimeZone string `json:"time_zone" jsonschema:"IANA time zone; schedule times of the account's To Dos are in it."`
}

// User is a person who signs in and owns API tokens.
type User struct {
	ID        int64  `json:"id"`
	Email     string `json:"email"`
	Admin     bool   `json:"admin"`
	CreatedAt Time   `json:"created_at"`
}

// UserCreate is a request to create a user. Without a password the user cannot sign in on
// the web until one is set (answerdesk user update --password-stdin); API tokens still work.
type UserCreate struct {
	Email          string   `json:"email" jsonschema:"Sign-in name, unique (compared in lower case)."`
	Password       string   `json:"password,omitempty" jsonschema:"Optional. Without one the user cannot sign in on the web until one is set with the CLI; API tokens work regardless."`
	Admin          bool     `json:"admin,omitempty"`
	AccountNumbers []string `json:"accounts,omitempty" jsonschema:"Account numbers the user is a member of. An unknown number is a 422 on accounts."`
}

// Lengths of a user's password, in bytes.
const (
	MinPasswordLength = 8
	MaxPasswordLength = 256
)

// Validate checks the email and, when one is given, the password.
func (u *UserCreate) Validate() error {
	var v ValidationErrors
	email, err := NormalizeEmail(u.Email)
	if err != nil {
		v.Add("email", ErrorMessage(err))
	}
	u.Email = email
	if u.Password != "" {
		validatePassword(&v, u.Password)
	}
	for i, n := range u.AccountNumbers {
		u.AccountNumbers[i] = strings.TrimSpace(n)
	}
	return v.Err()
}

func validatePassword(v *ValidationErrors, p string) {
	n := utf8.RuneCountInString(p)
	if n < MinPasswordLength {
		v.Add("password", fmt.Sprintf("must be at least %d characters", MinPasswordLength))
	}
	if n > MaxPasswordLength {
		v.Add("password", fmt.Sprintf("must be at most %d characters", MaxPasswordLength))
	}
}

// UserService manages users.
type UserService interface {
	CreateUser(ctx context.Context, u *UserCreate) (*User, error)
	FindUserByEmail(ctx context.Context, email string) (*User, error)
	// CheckPassword returns the user when email and password match, else EUNAUTHORIZED.
	CheckPassword(ctx context.Context, email, password string) (*User, error)
}

// Token is a customer API token. The plain value is shown once, at creation.
type Token struct {
	ID         int64  `json:"id"`
	UserID     int64  `json:"user_id"`
	UserEmail  string `json:"user_email,omitempty"`
	Name       string `json:"name"`
	Prefix     string `json:"prefix"`
	CreatedAt  Time   `json:"created_at"`
	LastUsedAt *Time  `json:"last_used_at"`
	RevokedAt  *Time  `json:"revoked_at"`
	// Scopes narrow the token (TokenScopes); nil is a full token, with every scope of its user.
	Scopes []string `json:"scopes,omitempty"`
}

// CheckTokenScopes checks the scopes a token is to be narrowed to: each one of TokenScopes,
// none twice.
func CheckTokenScopes(scopes []string) error {
	for i, sc := range scopes {
		if !slices.Contains(TokenScopes, sc) {
			return FieldErr("scope", Quote(sc)+" is not a scope a token can be narrowed to: "+mustBeOneOf(TokenScopes))
		}
		if slices.Contains(scopes[:i], sc) {
			return FieldErr("scope", Quote(sc)+" is given twice")
		}
	}
	return nil
}

// TokenPrefix starts every customer API token.
const TokenPrefix = "ak_"

// NewTokenValue returns a fresh random token: "ak_" and 43 URL-safe base64 characters.
func NewTokenValue() string { return NewSecret(TokenPrefix) }

// ValidTokenFormat reports whether s looks like a customer API token.
func ValidTokenFormat(s string) bool { return ValidSecretFormat(s, TokenPrefix) }

// HashToken is the SHA-256 of a token, the only form stored.
func HashToken(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// TokenDisplayPrefix is the part of a token shown in listings to tell tokens apart.
func TokenDisplayPrefix(s string) string {
	if len(s) < len(TokenPrefix)+6 {
		return s
	}
	return s[:len(TokenPrefix)+6]
}

// TokenService manages customer API tokens and authenticates requests that carry one.
type TokenService interface {
	// CreateToken makes a token for the user and returns it with its plain value.
	CreateToken(ctx context.Context, userID int64, name string) (*Token, string, error)
	// CreateScopedToken makes a token narrowed to scopes (CheckTokenScopes); no scopes
	// makes a full token, as CreateToken does.
	CreateScopedToken(ctx context.Context, userID int64, name string, scopes []string) (*Token, string, error)
	// ListTokens returns the user's tokens, or every token when userID is 0.
	ListTokens(ctx context.Context, userID int64) ([]*Token, error)
	// RevokeToken revokes a token; userID 0 revokes any user's token.
	RevokeToken(ctx context.Context, userID, tokenID int64) error
	// AuthenticateToken returns the caller a plain token stands for, or EUNAUTHORIZED.
	AuthenticateToken(ctx context.Context, plain string) (*Caller, error)
}
