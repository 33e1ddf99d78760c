package answerdesk

import (
	"context"
	"slices"
)

// Scopes a caller can hold. A customer API token holds all of them.
const (
	ScopeMessagesRead   = "messages:read"
	ScopeMessagesWrite  = "messages:write"
	ScopeRecordingsRead = "recordings:read"
	ScopeTodosRead      = "todos:read"
	ScopeTodosWrite     = "todos:write"
)

// AllScopes lists every scope, in the order they are documented.
var AllScopes = []string{ScopeMessagesRead, ScopeMessagesWrite, ScopeRecordingsRead, ScopeTodosRead, ScopeTodosWrite}

// Caller is who is asking: the user, whether they are an admin, the accounts they are a
// member of, and the scopes their credential grants. Every service method takes one, and
// every query is scoped by it.
type Caller struct {
	UserID     int64
	Email      string
	Admin      bool
	AccountIDs []int64
	Scopes     []string
	TokenID    int64 // the API token used, 0 for other credentials
}

// CanSeeAccount reports whether the caller may see data of the account.
func (c *Caller) CanSeeAccount(accountID int64) bool {
	return c.Admin || slices.Contains(c.AccountIDs, accountID)
}

// HasScope reports whether the caller's credential grants scope.
func (c *Caller) HasScope(scope string) bool {
	return slices.Contains(c.Scopes, scope)
}

// RequireScope returns an EFORBIDDEN error naming scope when the caller lacks it.
func (c *Caller) RequireScope(scope string) error {
	if c.HasScope(scope) {
		return nil
	}
	return &Error{Code: EFORBIDDEN, Message: "the credential lacks the scope " + scope, Hint: c.scopeHint(scope)}
}

// scopeHint says how to get a credential with scope: an API token's scopes are fixed when
// it is created, an OAuth token's when it is authorized.
func (c *Caller) scopeHint(scope string) string {
	if c.TokenID != 0 {
		return "this API token was created for other scopes: use a token created without --scope"
	}
	return "authorize again asking for " + scope
}

// RequireAnyScope returns an EFORBIDDEN error when the caller's credential grants none of
// AllScopes. Methods that show only who the caller is and which accounts they belong to
// (FindMe, FindAccounts) need no particular scope, but a credential narrowed to nothing,
// or to handing over recordings (ScopeRecordingsWrite), gets nothing.
func (c *Caller) RequireAnyScope() error {
	for _, sc := range c.Scopes {
		if slices.Contains(AllScopes, sc) {
			return nil
		}
	}
	return &Error{Code: EFORBIDDEN, Message: "the credential grants no scope", Hint: c.scopeHint("at least one scope")}
}

// Scopes of the external API dispatching configuration: on-call contacts and their
// deliveries decide where messages go, so reading them takes messages:read and changing
// them (or replaying a delivery) messages:write.
const (
	ScopeDispatchRead  = ScopeMessagesRead
	ScopeDispatchWrite = ScopeMessagesWrite
)

type callerKey struct{}

// NewContextWithCaller returns a copy of ctx carrying c.
func NewContextWithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFromContext returns the caller in ctx, or nil.
func CallerFromContext(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}
