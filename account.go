package answerdesk

import "context"

// Account lists: default 50 per page, at most 200, like messages.
const (
	DefaultAccountPageSize = 50
	MaxAccountPageSize     = 200
)

// AccountDetail is an account as GET /api/v2/accounts shows it: with what a To Do of the
// account may send from, so that clients (the Zapier app's dropdowns among them) can offer
// valid choices instead of learning them from 422s.
type AccountDetail struct {
	ID       int64  `json:"id" jsonschema:"Account id, as in a message's account_id."`
	Number   string `json:"number" jsonschema:"Account number, as in account_number of a To Do or an on-call contact."`
	Name     string `json:"name"`
	TimeZone string `json:"time_zone" jsonschema:"IANA time zone; schedule times of the account's To Dos are in it."`
	// SMSNumbers are the account's SMS-enabled numbers, the valid values of an SMS To Do's from.
	SMSNumbers []string `json:"sms_numbers" jsonschema:"SMS-enabled numbers of the account, by number: the valid values of an SMS To Do's from (a leading +1 may be left out). Empty when the account cannot send SMS."`
	// SendingDomains are the authenticated email-sending domains: an email To Do's from_email
	// must be an address on one of them.
	SendingDomains []string `json:"sending_domains" jsonschema:"Authenticated email-sending domains of the account, by name: an email To Do's from_email must be an address on one of them (and not blacklisted). Empty when the account cannot send email."`
}

// Me is the caller as GET /api/v2/me shows them: who the token belongs to, for a client to
// label a connection, and the accounts they are a member of.
type Me struct {
	ID    int64  `json:"id" jsonschema:"User id."`
	Email string `json:"email"`
	// Admin users see and may use every account, not only those in Accounts.
	Admin    bool       `json:"admin" jsonschema:"Admins see and may use every account, not only those in accounts."`
	Accounts []*Account `json:"accounts" jsonschema:"Accounts the user is a member of, by number."`
}

// AccountService reads the accounts a caller can see.
type AccountService interface {
	// FindAccounts returns one page of the accounts the caller can see (every account for an
	// admin), by number.
	FindAccounts(ctx context.Context, c *Caller, p Paging) ([]*AccountDetail, PageMeta, error)
	// FindMe returns the caller's user and the accounts they are a member of.
	FindMe(ctx context.Context, c *Caller) (*Me, error)
}
