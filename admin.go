package answerdesk

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// SystemCaller is the operator at the command line: an admin with every scope. The CLI's
// provisioning commands call the same AdminService methods as the admin API with it, so a
// rule holds however the service is provisioned.
func SystemCaller() *Caller {
	return &Caller{Email: "answerdesk-cli", Admin: true, Scopes: AllScopes}
}

// RequireAdmin returns an EFORBIDDEN error unless the caller is an admin.
func (c *Caller) RequireAdmin() error {
	if c != nil && c.Admin {
		return nil
	}
	return &Error{Code: EFORBIDDEN, Message: "only an admin may do this",
		Hint: "Use an admin user's token, or run the matching answerdesk account/user command on the server."}
}

// What one account may hold, so that its object and its checks stay small.
const (
	MaxSMSNumbersPerAccount     = 100
	MaxSendingDomainsPerAccount = 100
	MaxBlacklistPerAccount      = 10_000
)

// Email blacklist pages.
const (
	DefaultBlacklistPageSize = 50
	MaxBlacklistPageSize     = 200
)

// MaxAccountNameLength is the longest account name, in bytes.
const MaxAccountNameLength = 200

var (
	// accountNumberRE is 1 to 20 digits without a leading zero: 03001 and 3001 would be two
	// accounts that every person reading them takes for one.
	accountNumberRE = regexp.MustCompile(`^[1-9][0-9]{0,19}$`)
	// smsNumberRE is an E.164 number: "+", then 8 to 15 digits, the first not 0.
	smsNumberRE = regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`)
	// domainRE is a DNS name of at least two labels, letters, digits and hyphens.
	domainRE = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`)
)

// AccountCreate is a request to create an account, optionally with its SMS-enabled numbers
// and authenticated sending domains (what the CLI's account create takes in one go).
type AccountCreate struct {
	Number         string   `json:"number" jsonschema:"Account number: 1 to 20 digits, unique."`
	Name           string   `json:"name" jsonschema:"Display name."`
	TimeZone       string   `json:"time_zone,omitempty" jsonschema:"IANA time zone of the account's To Do schedules. Default America/New_York."`
	SMSNumbers     []string `json:"sms_numbers,omitempty" jsonschema:"SMS-enabled numbers to add at once (E.164; ten digits get +1)."`
	SendingDomains []string `json:"sending_domains,omitempty" jsonschema:"Authenticated sending domains to add at once."`
}

// Validate normalises and checks the request; every bad field is reported at once.
func (a *AccountCreate) Validate() error {
	var v ValidationErrors
	a.Number = strings.TrimSpace(a.Number)
	a.Name = strings.TrimSpace(a.Name)
	a.TimeZone = strings.TrimSpace(a.TimeZone)
	if !accountNumberRE.MatchString(a.Number) {
		v.Add("number", "must be 1 to 20 digits, the first not 0")
	}
	validateAccountName(&v, a.Name)
	if a.TimeZone == "" {
		a.TimeZone = DefaultTimeZone
	}
	validateTimeZone(&v, a.TimeZone)
	for i, n := range a.SMSNumbers {
		n, err := NormalizeSMSNumber(n)
		if err != nil {
			v.Add("sms_numbers", ErrorMessage(err))
			break
		}
		a.SMSNumbers[i] = n
	}
	for i, d := range a.SendingDomains {
		d, err := NormalizeDomain(d)
		if err != nil {
			v.Add("sending_domains", ErrorMessage(err))
			break
		}
		a.SendingDomains[i] = d
	}
	return v.Err()
}

// AccountUpdate changes an account; nil fields stay as they are.
type AccountUpdate struct {
	Name     *string `json:"name,omitempty" jsonschema:"Display name."`
	TimeZone *string `json:"time_zone,omitempty" jsonschema:"IANA time zone. Schedules already computed keep their instants; new ones use the new zone."`
}

// Validate normalises and checks the fields given.
func (u *AccountUpdate) Validate() error {
	var v ValidationErrors
	if u.Name != nil {
		*u.Name = strings.TrimSpace(*u.Name)
		validateAccountName(&v, *u.Name)
	}
	if u.TimeZone != nil {
		*u.TimeZone = strings.TrimSpace(*u.TimeZone)
		validateTimeZone(&v, *u.TimeZone)
	}
	return v.Err()
}

func validateAccountName(v *ValidationErrors, name string) {
	switch {
	case name == "":
		v.Add("name", "is required")
	case utf8.RuneCountInString(name) > MaxAccountNameLength:
		v.Add("name", fmt.Sprintf("must be at most %d characters", MaxAccountNameLength))
	}
}

func validateTimeZone(v *ValidationErrors, zone string) {
	// time.LoadLocation accepts "" and "Local", which are not IANA names of a place.
	if _, err := time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
		v.Add("time_zone", "must be an IANA time zone name such as America/New_York")
	}
}

// NormalizeSMSNumber returns an SMS number in E.164 form. Ten digits are taken as a North
// American number (+1 is added), as the To Do "from" check does.
func NormalizeSMSNumber(n string) (string, error) {
	n = strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '(' || r == ')' || r == '.' {
			return -1
		}
		return r
	}, strings.TrimSpace(n))
	if len(n) == 10 && !strings.HasPrefix(n, "+") {
		n = "+1" + n
	}
	if !smsNumberRE.MatchString(n) {
		return "", &Error{Code: EINVALID, Message: "must be an E.164 phone number such as +15550101001"}
	}
	return n, nil
}

// NormalizeDomain returns a sending domain in lower case, checked to be a DNS name.
func NormalizeDomain(d string) (string, error) {
	d = DomainKey(d)
	if len(d) > 253 || !domainRE.MatchString(d) {
		return "", &Error{Code: EINVALID, Message: "must be a domain name such as example.com"}
	}
	return d, nil
}

// DomainKey is the form a domain name is stored and looked up in: trimmed, in lower case,
// without a final dot. NormalizeDomain also checks it.
func DomainKey(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

// EmailKey is the form an email address is stored and looked up in: trimmed, in lower case.
// NormalizeEmail also checks it.
func EmailKey(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// NormalizeEmail returns an email address in lower case, checked to be a bare address.
func NormalizeEmail(e string) (string, error) {
	e = EmailKey(e)
	if !IsEmailAddress(e) {
		return "", &Error{Code: EINVALID, Message: "must be an email address"}
	}
	return e, nil
}

// UserDetail is a user as the admin API shows it.
type UserDetail struct {
	ID          int64  `json:"id"`
	Email       string `json:"email"`
	Admin       bool   `json:"admin" jsonschema:"Admins see and may use every account, and may provision."`
	Disabled    bool   `json:"disabled" jsonschema:"A disabled user's API tokens, OAuth grants and web sessions do not work."`
	HasPassword bool   `json:"has_password" jsonschema:"False when the user was created without a password: they cannot sign in on the web until one is set with answerdesk user update --password-stdin."`
	// Accounts are the numbers of the accounts the user is a member of.
	Accounts   []string `json:"accounts" jsonschema:"Numbers of the accounts the user is a member of."`
	CreatedAt  Time     `json:"created_at"`
	DisabledAt *Time    `json:"disabled_at" jsonschema:"When the user was disabled; null when enabled."`
}

// UserUpdate changes a user; nil fields stay as they are. Accounts, when given, replaces
// the user's memberships.
type UserUpdate struct {
	Accounts *[]string `json:"accounts,omitempty" jsonschema:"Replaces the user's memberships."`
	Admin    *bool     `json:"admin,omitempty"`
	Disabled *bool     `json:"disabled,omitempty" jsonschema:"true disables the user at once: their API tokens stop working, their OAuth grants are revoked and their web sessions end. false enables them again (their API tokens work again; OAuth clients must be authorized again)."`
	// Password is set by the command line only (never taken by the API).
	Password *string `json:"-"`
}

// Validate checks the fields given.
func (u *UserUpdate) Validate() error {
	var v ValidationErrors
	if u.Password != nil {
		validatePassword(&v, *u.Password)
	}
	if u.Accounts != nil {
		for i, n := range *u.Accounts {
			(*u.Accounts)[i] = strings.TrimSpace(n)
		}
	}
	return v.Err()
}

// Default and largest page of the user list.
const (
	DefaultUserPageSize = 50
	MaxUserPageSize     = 200
)

// AdminService provisions the service: accounts with their SMS numbers, sending domains and
// email blacklist, and users. Every method requires an admin caller (EFORBIDDEN otherwise),
// except FindAccount, which shows any caller an account they can see. The admin API and
// the command line both call it, so each rule lives here once.
type AdminService interface {
	CreateAccount(ctx context.Context, c *Caller, req *AccountCreate) (*AccountDetail, error)
	UpdateAccount(ctx context.Context, c *Caller, number string, req *AccountUpdate) (*AccountDetail, error)
	// FindAccount returns one account the caller can see, by number; ENOTFOUND otherwise.
	FindAccount(ctx context.Context, c *Caller, number string) (*AccountDetail, error)
	AddSMSNumber(ctx context.Context, c *Caller, account, number string) (*AccountDetail, error)
	// RemoveSMSNumber and RemoveSendingDomain answer with what they removed, as every
	// DELETE of the API does (the customer API conventions (Getting started docs page)).
	RemoveSMSNumber(ctx context.Context, c *Caller, account, number string) (*SMSNumber, error)
	AddSendingDomain(ctx context.Context, c *Caller, account, domain string) (*AccountDetail, error)
	RemoveSendingDomain(ctx context.Context, c *Caller, account, domain string) (*SendingDomain, error)
	AddBlacklistedEmail(ctx context.Context, c *Caller, account, email string) (*BlacklistEntry, error)
	RemoveBlacklistedEmail(ctx context.Context, c *Caller, account, email string) (*BlacklistEntry, error)
	// FindBlacklist returns one page of the account's blacklisted addresses, by address.
	FindBlacklist(ctx context.Context, c *Caller, account string, p Paging) ([]*BlacklistEntry, PageMeta, error)

	CreateUser(ctx context.Context, c *Caller, req *UserCreate) (*UserDetail, error)
	FindUsers(ctx context.Context, c *Caller, p Paging) ([]*UserDetail, PageMeta, error)
	// FindUser returns a user by id, or by email when ref contains "@".
	FindUser(ctx context.Context, c *Caller, ref string) (*UserDetail, error)
	UpdateUser(ctx context.Context, c *Caller, ref string, req *UserUpdate) (*UserDetail, error)
}

// SMSNumber is one of an account's SMS-enabled numbers (AccountDetail.SMSNumbers holds them
// by number).
type SMSNumber struct {
	AccountNumber string `json:"account_number" jsonschema:"Number of the account."`
	Number        string `json:"number" jsonschema:"The SMS number, E.164."`
}

// SendingDomain is one of an account's authenticated email-sending domains
// (AccountDetail.SendingDomains holds them by name).
type SendingDomain struct {
	AccountNumber string `json:"account_number" jsonschema:"Number of the account."`
	Domain        string `json:"domain" jsonschema:"The domain, lower case."`
}

// BlacklistEntry is an address that may never be a To Do's from_email on the account it
// was blacklisted for (each account has its own blacklist).
type BlacklistEntry struct {
	Email     string `json:"email"`
	CreatedAt Time   `json:"created_at" jsonschema:"When it was blacklisted."`
}
