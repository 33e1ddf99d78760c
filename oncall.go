package answerdesk

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

// DeliveryMethodExternalAPI is the only delivery method type: a POST to the customer's URL.
const DeliveryMethodExternalAPI = "external_api"

// Escalation limits.
const (
	MaxEscalationLevel          = 10
	DefaultEscalateAfterMinutes = 15
)

// Configuration limits (the External API dispatching docs page). With MaxPayloadFields and MaxPayloadBytes they bound
// what one message can make the service send and store: every delivery method of a level
// gets its own rendered body.
const (
	// MaxOnCallContactsPerAccount is the most on-call contacts an account may have at once
	// (deleted ones do not count). The store checks it, as it needs the account's count.
	MaxOnCallContactsPerAccount = 100
	// MaxDeliveryMethodsPerContact is the most delivery methods one contact may have.
	MaxDeliveryMethodsPerContact = 10
	// MaxPayloadValueLength is the longest data value (its template, before rendering).
	MaxPayloadValueLength = 10000
)

// Replays of deliveries are limited per account: each one sends a stored body (up to
// MaxPayloadBytes) again at once, so without a limit a customer could turn the service into a
// bandwidth amplifier towards any URL.
const (
	ReplayRateLimit  = 30          // replays per window per account
	ReplayRateWindow = time.Minute // the window
)

// ReplayLimitKey is the rate-limit key of replays of an account's deliveries.
func ReplayLimitKey(accountID int64) string { return fmt.Sprintf("replay|%d", accountID) }

// ReplayLimited is the error of a replay refused by the rate limit.
func ReplayLimited(d RateDecision) *Error {
	// Whole seconds, rounded up: a retry before the window turns would be refused again.
	retry := time.Duration(math.Ceil(max(d.Reset, time.Second).Seconds())) * time.Second
	return &Error{Code: ERATELIMITED, RetryAfter: retry,
		Message: fmt.Sprintf("too many replays: an account may replay at most %d deliveries in %d seconds", d.Limit, int(ReplayRateWindow/time.Second)),
		Hint:    fmt.Sprintf("Retry in %d seconds (Retry-After).", int(retry/time.Second))}
}

// OnCallContact is someone a message is delivered to, in an escalation level of an account.
type OnCallContact struct {
	ID                   int64            `json:"id" jsonschema:"Integer id of the contact."`
	AccountNumber        string           `json:"account_number" jsonschema:"Number of the account the contact is on call for."`
	Name                 string           `json:"name" jsonschema:"Name of the contact; {{contact.name}} in merge variables."`
	EscalationLevel      int              `json:"escalation_level" jsonschema:"Escalation level of the contact: a new message goes to the lowest level with contacts, and to the next one when it is not acknowledged in time."`
	EscalateAfterMinutes int              `json:"escalate_after_minutes" jsonschema:"Minutes a message waits at this contact's level for an acknowledgement before it escalates to the next level (the shortest of the level's contacts counts)."`
	DeliveryMethods      []DeliveryMethod `json:"delivery_methods" jsonschema:"How the contact is reached, oldest first."`
	CreatedAt            Time             `json:"created_at" jsonschema:"When the contact was created."`

	AccountID int64 `json:"-"`
}

// DeliveryMethod is how a contact is reached. Secrets are write-only: responses say
// whether they are set, never what they are.
type DeliveryMethod struct {
	ID               int64             `json:"id" jsonschema:"Integer id of the method; delivery_method_id on its deliveries."`
	Type             string            `json:"type" jsonschema:"Kind of method; external_api is the only one: an HTTP POST to url."`
	URL              string            `json:"url" jsonschema:"Where the message is POSTed."`
	PayloadType      string            `json:"payload_type" jsonschema:"Body format: JSON is a flat JSON object of field name to string value (Content-Type application/json); FORM is name=value pairs (application/x-www-form-urlencoded)."`
	Data             []PayloadField    `json:"data" jsonschema:"The body's fields in order, as configured: values keep their merge variables."`
	BasicAuth        *BasicAuthView    `json:"basic_auth" jsonschema:"Basic auth sent with each request, without its password; null when none."`
	Headers          map[string]string `json:"headers" jsonschema:"Names of the custom headers sent with each request; the values are write-only and shown as \"[write-only]\". Empty object when none."` // names only; values are write-only
	SigningSecretSet bool              `json:"signing_secret_set" jsonschema:"true when a signing secret is set: requests carry the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature. The secret itself is write-only."`
	DisabledAt       *Time             `json:"disabled_at" jsonschema:"When the method was disabled (its endpoint answered 410 Gone); it gets no new deliveries from then on. null while enabled."`
	DisabledReason   *string           `json:"disabled_reason" jsonschema:"Why the method was disabled, e.g. \"the endpoint answered 410 Gone\"; null while enabled."`
}

// BasicAuthView shows a method's Basic auth without its password.
type BasicAuthView struct {
	Username string `json:"username" jsonschema:"Basic auth username."`
}

// DeliveryMethodInput is a delivery method as configured, secrets included.
type DeliveryMethodInput struct {
	Type          string
	URL           string
	PayloadType   string
	Data          []PayloadField
	BasicUser     string
	BasicPass     string
	Headers       map[string]string
	SigningSecret string
}

// OnCallContactCreate is a validated request to create an on-call contact.
type OnCallContactCreate struct {
	AccountNumber        string
	Name                 string
	EscalationLevel      int
	EscalateAfterMinutes int
	Methods              []DeliveryMethodInput
}

// ReservedHeader reports whether a header is one the dispatcher sets or the connection
// owns, so it may not be configured on a delivery method. The sender skips the same names.
func ReservedHeader(name string) bool {
	k := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
	if strings.HasPrefix(k, "Webhook-") || strings.HasPrefix(k, "Proxy-") {
		return true
	}
	switch k {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Idempotency-Key",
		"User-Agent", "Te", "Trailer", "Upgrade", "Expect":
		return true
	}
	return false
}

// OnCallContactCreateRequest is the body of POST /api/v2/on-call-contacts: one flat object.
// account_number and name are trimmed (blank counts as missing).
type OnCallContactCreateRequest struct {
	AccountNumber        Opt[string]                       `json:"account_number" jsonschema:"Number of the account the contact is on call for; you must be an admin or a member of the account."`
	Name                 Opt[string]                       `json:"name" jsonschema:"Name of the contact; {{contact.name}} in merge variables."`
	EscalationLevel      Opt[int]                          `json:"escalation_level,omitzero" jsonschema:"Escalation level, 1 to 10. Default 1."`
	EscalateAfterMinutes Opt[int]                          `json:"escalate_after_minutes,omitzero" jsonschema:"Minutes a message waits at this level for an acknowledgement before escalating to the next level that has contacts, 1 to 1440. Default 15."`
	DeliveryMethods      Opt[[]Opt[DeliveryMethodRequest]] `json:"delivery_methods" jsonschema:"1 to 10 delivery methods."`
}

// DeliveryMethodRequest is a delivery method in an on-call contact's create body.
type DeliveryMethodRequest struct {
	Type          Opt[string]            `json:"type,omitzero" jsonschema:"Kind of method; external_api (the default) is the only one."`
	URL           Opt[string]            `json:"url" jsonschema:"Absolute http or https URL the message is POSTed to, at most 2048 characters. It must not hold credentials (user:password@): use basic_auth. Loopback, private, link-local and cloud-metadata destinations are refused at delivery time unless the server runs with --dispatch-allow-private."`
	PayloadType   Opt[string]            `json:"payload_type,omitzero" jsonschema:"JSON (default): a flat JSON object of field name to string value. FORM: application/x-www-form-urlencoded name=value pairs. Matched case-insensitively, stored in upper case."`
	Data          Opt[[]PayloadField]    `json:"data" jsonschema:"1 to 50 body fields, in order. Values may hold merge variables; an unknown variable is a 422 on delivery_methods[i].data[j].value."`
	BasicAuth     Opt[BasicAuthRequest]  `json:"basic_auth,omitzero" jsonschema:"Basic auth sent with each request (Authorization: Basic ...; it replaces a configured Authorization header). Both username and password, or neither."`
	Headers       Opt[map[string]string] `json:"headers,omitzero"`
	SigningSecret Opt[string]            `json:"signing_secret,omitzero"`
}

// BasicAuthRequest is the Basic auth of a delivery method as configured.
type BasicAuthRequest struct {
	Username Opt[string] `json:"username,omitzero" jsonschema:"Username, without \":\". Shown in responses."`
	Password Opt[string] `json:"password,omitzero" jsonschema:"Password. Write-only: never returned."`
}

// MaxContactNameLength is the longest name of an on-call contact.
const MaxContactNameLength = 200

// Limits of an on-call contact's settings: the longest wait at a level, and of each
// delivery method the longest URL and the most custom headers.
const (
	MaxEscalateAfterMinutes = 1440
	MaxURLLength            = 2048
	MaxHeaders              = 20
)

// ParseOnCallContactCreate reads and validates a create body (an
// OnCallContactCreateRequest), reporting every bad field.
func ParseOnCallContactCreate(body []byte) (*OnCallContactCreate, error) {
	var in OnCallContactCreateRequest
	if err := DecodeJSONObject(body, &in); err != nil {
		return nil, err
	}
	var v ValidationErrors
	c := &OnCallContactCreate{EscalationLevel: 1, EscalateAfterMinutes: DefaultEscalateAfterMinutes}
	if c.AccountNumber = strings.TrimSpace(in.AccountNumber.Value); c.AccountNumber == "" {
		v.Add("account_number", "is required")
	}
	if c.Name = strings.TrimSpace(in.Name.Value); c.Name == "" {
		v.Add("name", "is required")
	} else if utf8.RuneCountInString(c.Name) > MaxContactNameLength {
		v.Add("name", fmt.Sprintf("must be at most %d characters", MaxContactNameLength))
	}
	if l := in.EscalationLevel; l.Set {
		if l.Value < 1 || l.Value > MaxEscalationLevel {
			v.Add("escalation_level", fmt.Sprintf("must be from 1 to %d", MaxEscalationLevel))
		}
		c.EscalationLevel = l.Value
	}
	if m := in.EscalateAfterMinutes; m.Set {
		if m.Value < 1 || m.Value > MaxEscalateAfterMinutes {
			v.Add("escalate_after_minutes", fmt.Sprintf("must be from 1 to %d", MaxEscalateAfterMinutes))
		}
		c.EscalateAfterMinutes = m.Value
	}
	methods := in.DeliveryMethods.Value
	if len(methods) == 0 {
		v.Add("delivery_methods", "is required: at least one delivery method")
	}
	if len(methods) > MaxDeliveryMethodsPerContact {
		v.Add("delivery_methods", fmt.Sprintf("must have at most %d methods", MaxDeliveryMethodsPerContact))
	}
	for i, m := range methods {
		if m, ok := parseDeliveryMethod(&v, fmt.Sprintf("delivery_methods[%d]", i), m); ok {
			c.Methods = append(c.Methods, m)
		}
	}
	return c, v.Err()
}

func parseDeliveryMethod(v *ValidationErrors, prefix string, o Opt[DeliveryMethodRequest]) (DeliveryMethodInput, bool) {
	in := o.Value
	var m DeliveryMethodInput
	// A value of the wrong type is reported on the method, but for data, which has its own
	// message.
	wrong := slices.DeleteFunc(wrongTypes(&in), func(f FieldError) bool { return f.Field == "data" })
	if o.Wrong != "" || len(wrong) > 0 || len(wrongTypes(&in.BasicAuth.Value)) > 0 {
		v.Add(prefix, "must be an object with type, url, payload_type, data, and optional basic_auth, headers, signing_secret (check the value types)")
		return m, false
	}
	before := len(v.fields)
	m.Type = DeliveryMethodExternalAPI
	if in.Type.Set && in.Type.Value != DeliveryMethodExternalAPI {
		v.Add(prefix+".type", `must be "external_api"`)
	}
	m.URL = methodURL(v, prefix, in.URL.Value)
	m.PayloadType = PayloadJSON
	if in.PayloadType.Set {
		m.PayloadType = strings.ToUpper(strings.TrimSpace(in.PayloadType.Value))
		if m.PayloadType != PayloadJSON && m.PayloadType != PayloadForm {
			v.Add(prefix+".payload_type", `must be "JSON" or "FORM"`)
		}
	}
	m.Data = in.Data.Value
	methodData(v, prefix, in.Data)
	if in.BasicAuth.Set {
		m.BasicUser, m.BasicPass = methodBasicAuth(v, prefix, in.BasicAuth.Value)
	}
	m.Headers = methodHeaders(v, prefix, in.Headers.Value)
	if in.SigningSecret.Value != "" {
		m.SigningSecret = in.SigningSecret.Value
		key, ok := strings.CutPrefix(m.SigningSecret, "whsec_")
		raw, err := base64.StdEncoding.DecodeString(key)
		if !ok || err != nil || len(raw) < 24 || len(raw) > 64 {
			v.Add(prefix+".signing_secret", `must be "whsec_" followed by 24 to 64 base64-encoded bytes`)
		}
	}
	return m, len(v.fields) == before
}

// methodURL checks a delivery method's url: an absolute http or https URL without
// credentials, at most MaxURLLength characters. It returns the URL trimmed.
func methodURL(v *ValidationErrors, prefix, raw string) string {
	if raw == "" {
		v.Add(prefix+".url", "is required")
		return ""
	}
	u := strings.TrimSpace(raw)
	parsed, err := url.Parse(u)
	switch {
	case err != nil || parsed.Host == "" || (parsed.Scheme != "http" && parsed.Scheme != "https"):
		v.Add(prefix+".url", "must be an absolute http or https URL")
	case parsed.User != nil:
		v.Add(prefix+".url", "must not hold credentials; use basic_auth")
	case len(u) > MaxURLLength:
		v.Add(prefix+".url", fmt.Sprintf("must be at most %d characters", MaxURLLength))
	}
	return u
}

// methodData checks a delivery method's data: 1 to MaxPayloadFields fields, each named and
// with a string value of at most MaxPayloadValueLength characters.
func methodData(v *ValidationErrors, prefix string, data Opt[[]PayloadField]) {
	if !data.Has() {
		v.Add(prefix+".data", `is required: [{"field": "...", "value": "..."}]`)
	} else if data.Wrong != "" {
		v.Add(prefix+".data", `must be a list of {"field": string, "value": string}`)
	} else {
		if len(data.Value) == 0 || len(data.Value) > MaxPayloadFields {
			v.Add(prefix+".data", fmt.Sprintf("must have from 1 to %d fields", MaxPayloadFields))
		}
		for i, f := range data.Value {
			p := fmt.Sprintf("%s.data[%d]", prefix, i)
			switch {
			case strings.TrimSpace(f.Field) == "":
				v.Add(p+".field", "is required")
			case len(f.Field) > 200:
				v.Add(p+".field", "must be at most 200 characters")
			}
			if f.noValue {
				v.Add(p+".value", `is required: a string, "" for an empty value`)
			} else if len(f.Value) > MaxPayloadValueLength {
				v.Add(p+".value", fmt.Sprintf("must be at most %d characters", MaxPayloadValueLength))
			}
			// An unknown merge variable is not refused here: a delivery renders it as an
			// empty string with a warning on the delivery (Render), like a missing answer.
		}
	}
}

// methodBasicAuth checks a delivery method's basic_auth and returns its user and password.
func methodBasicAuth(v *ValidationErrors, prefix string, in BasicAuthRequest) (user, pass string) {
	user, pass = in.Username.Value, in.Password.Value
	switch {
	case (user == "") != (pass == ""):
		v.Add(prefix+".basic_auth", "needs both username and password, or neither")
	case strings.Contains(user, ":"):
		v.Add(prefix+".basic_auth.username", `must not contain ":"`)
	}
	// RFC 7617 §2: neither may hold a control character (a line break, a tab...).
	if strings.IndexFunc(user, unicode.IsControl) >= 0 {
		v.Add(prefix+".basic_auth.username", "must not contain control characters")
	}
	if strings.IndexFunc(pass, unicode.IsControl) >= 0 {
		v.Add(prefix+".basic_auth.password", "must not contain control characters")
	}
	return user, pass
}

// methodHeaders checks a delivery method's headers and returns them by canonical name.
func methodHeaders(v *ValidationErrors, prefix string, headers map[string]string) map[string]string {
	if len(headers) > MaxHeaders {
		v.Add(prefix+".headers", fmt.Sprintf("must have at most %d headers", MaxHeaders))
	}
	out := map[string]string{}
	// In name order, so that the errors come in the same order on every request; names
	// are case-insensitive, so two that differ only in case are one header given twice
	// (which value would be sent would otherwise be decided by map order).
	given := map[string]string{} // canonical name → the name as given first
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		value := headers[name]
		canon := textproto.CanonicalMIMEHeaderKey(name)
		first, twice := given[canon]
		if !twice {
			given[canon] = name
		}
		switch {
		case !ValidHeaderName(name):
			v.Add(prefix+".headers", Quote(name)+" is not a valid header name")
		case twice:
			v.Add(prefix+".headers", Quote(first)+" and "+Quote(name)+" name the same header (header names are case-insensitive); give it once")
		case ReservedHeader(canon):
			v.Add(prefix+".headers", fmt.Sprintf("%s is set by the dispatcher and cannot be configured", canon))
		case !ValidHeaderValue(value):
			v.Add(prefix+".headers", fmt.Sprintf("the value of %s must be one line of at most %d characters", canon, MaxHeaderValueLength))
		default:
			out[canon] = value
		}
	}
	return out
}

// Limits of a configured header of a delivery method.
const (
	MaxHeaderNameLength  = 100
	MaxHeaderValueLength = 4096
)

// ValidHeaderName reports whether name may be a configured header's name: an RFC 9110
// token (httpguts decides) of at most MaxHeaderNameLength bytes. The configuration API
// and the dispatcher, which builds requests from stored rows, both ask this.
func ValidHeaderName(name string) bool {
	return len(name) <= MaxHeaderNameLength && httpguts.ValidHeaderFieldName(name)
}

// ValidHeaderValue reports whether value may be a configured header's value: one line
// (no control character but tab, as httpguts decides) of at most MaxHeaderValueLength
// characters, as the API reference's maxLength counts them.
func ValidHeaderValue(value string) bool {
	return utf8.RuneCountInString(value) <= MaxHeaderValueLength && httpguts.ValidHeaderFieldValue(value)
}

// Dispatch delivery statuses.
const (
	DispatchPending   = "pending"
	DispatchDelivered = "delivered"
	DispatchFailed    = "failed"
)

// DispatchDelivery is one message pushed to one delivery method, with every attempt.
type DispatchDelivery struct {
	ID              int64             `json:"id" jsonschema:"Integer id of the delivery; the {id} of replayDispatchDelivery."`
	UUID            string            `json:"uuid" jsonschema:"The Idempotency-Key (and, when signed, webhook-id) header of every attempt of this delivery, retries and replays included."`
	MessageID       int64             `json:"message_id" jsonschema:"Id of the message delivered."`
	ContactID       int64             `json:"contact_id" jsonschema:"Id of the on-call contact (it may since have been deleted)."`
	MethodID        int64             `json:"delivery_method_id" jsonschema:"Id of the delivery method."`
	EscalationLevel int               `json:"escalation_level" jsonschema:"Escalation level the message was at when this delivery was created."`
	URL             string            `json:"url" jsonschema:"Where the delivery is POSTed."`
	Status          string            `json:"status" jsonschema:"pending: waiting for its first attempt or a retry, or being sent right now. delivered: an attempt got a 2xx answer. failed: retries exhausted, an answer that is not retried (3xx, 4xx other than 408 and 429, 410 included), a refused destination, or its contact was deleted. A failed or delivered delivery can be replayed."`
	NextAttemptAt   *Time             `json:"next_attempt_at" jsonschema:"While pending: when the next attempt is due (in the past while an attempt is in flight). null when delivered or failed."`
	Warnings        []string          `json:"warnings" jsonschema:"Problems found when the body was rendered, e.g. a question the message has no answer to (the variable resolved to an empty string). Empty when none."`
	Attempts        []DispatchAttempt `json:"attempts" jsonschema:"Every attempt, oldest first; empty before the first. A replay appends to it."`
	CreatedAt       Time              `json:"created_at" jsonschema:"When the delivery was created (the message's creation, or its escalation to this level); the body was rendered then."`
	UpdatedAt       Time              `json:"updated_at" jsonschema:"When the delivery last changed."`
}

// DispatchAttempt is one HTTP request of a delivery.
type DispatchAttempt struct {
	At              Time    `json:"at" jsonschema:"When the attempt ended."`
	HTTPStatus      *int    `json:"http_status" jsonschema:"Status code of your endpoint's answer; null when none arrived (network error, time-out, refused destination)."`
	DurationMS      int64   `json:"duration_ms" jsonschema:"How long the attempt took, in milliseconds (at most about 10000: the time-out)."`
	Error           *string `json:"error" jsonschema:"Why no answer arrived: a category and the host of the configured URL, never an address it resolved to or the service's resolver: dns (\"dns: no such host hooks.example.com\"), connect (\"connect: refused by hooks.example.com\"), timeout (\"timeout after 10s waiting for hooks.example.com\"), tls, http, network, blocked (a private, loopback or reserved destination; not retried) or invalid (not retried). null when the endpoint answered, whatever the status."`
	ResponseExcerpt *string `json:"response_excerpt" jsonschema:"The first 256 bytes of the answer's body, as UTF-8; null when there was no answer or its body was empty."`
}

// What an attempt keeps of an answer and of an error: a message at the configuration
// limits has a thousand deliveries of nine attempts each, all of them stored.
const (
	MaxAttemptExcerptBytes = 256
	MaxAttemptErrorBytes   = 512
)

// Page sizes of on-call contacts and of dispatch deliveries.
const (
	DefaultContactPageSize  = 20
	MaxContactPageSize      = 100
	DefaultDeliveryPageSize = 50
	MaxDeliveryPageSize     = 200
)

// DispatchStatuses are the states of a dispatch delivery, the values of its status filter.
var DispatchStatuses = []string{DispatchPending, DispatchDelivered, DispatchFailed}

// DeliveryFilter asks for a page of deliveries.
type DeliveryFilter struct {
	MessageID string
	Status    string
	Page      *int
	PageSize  *int
}

// DeliveryQuery is a validated DeliveryFilter.
type DeliveryQuery struct {
	MessageID int64
	Status    string
	Paging
}

// Validate checks the filter.
func (f DeliveryFilter) Validate() (DeliveryQuery, error) {
	var v ValidationErrors
	q := DeliveryQuery{Status: f.Status}
	if f.MessageID != "" {
		id, ok := ParseID(f.MessageID)
		if !ok {
			v.Add("message_id", "must be a message id")
		}
		q.MessageID = id
	}
	if f.Status != "" && !slices.Contains(DispatchStatuses, f.Status) {
		v.Add("status", "must be pending, delivered or failed")
	}
	q.Paging = CheckPaging(&v, f.Page, f.PageSize, DefaultDeliveryPageSize, MaxDeliveryPageSize)
	return q, v.Err()
}

// DispatchService configures on-call contacts and shows and replays deliveries.
type DispatchService interface {
	CreateOnCallContact(ctx context.Context, c *Caller, in *OnCallContactCreate) (*OnCallContact, error)
	FindOnCallContacts(ctx context.Context, c *Caller, p Paging) ([]*OnCallContact, PageMeta, error)
	DeleteOnCallContact(ctx context.Context, c *Caller, id string) (*OnCallContact, error)
	FindDispatchDeliveries(ctx context.Context, c *Caller, q DeliveryQuery) ([]*DispatchDelivery, PageMeta, error)
	ReplayDispatchDelivery(ctx context.Context, c *Caller, id string) (*DispatchDelivery, error)
}

// ClaimedDelivery is a delivery leased by the dispatcher, with what it needs to render and
// send it. Its body is rendered for each attempt (RenderPayloadWithin) from the method's
// fields and the merge data, within BodyLimit, and is never stored.
type ClaimedDelivery struct {
	ID            int64
	UUID          string
	MessageID     int64
	MethodID      int64
	Attempts      int   // attempts recorded before this one: what the backoff counts
	Claim         int64 // the claim this attempt holds; a record for an older claim settles nothing
	URL           string
	PayloadType   string
	Fields        []PayloadField
	BodyLimit     int        // the delivery's share of its message's payload budget (PayloadShare)
	Merge         *MergeData // the message, its account and the contact
	Headers       map[string]string
	BasicUser     string
	BasicPass     string
	SigningSecret string
}

// DeliveryOutcome is the result of one attempt of a claimed delivery.
type DeliveryOutcome struct {
	Delivery   *ClaimedDelivery
	At         time.Time
	HTTPStatus int // 0 without a response
	Duration   time.Duration
	Error      string
	Excerpt    string
	// Warnings are the rendering's (RenderPayloadWithin): they replace the delivery's.
	Warnings      []string
	Status        string    // DispatchDelivered, DispatchFailed, or DispatchPending to retry at RetryAt
	RetryAt       time.Time // with DispatchPending
	DisableMethod string    // non-empty: disable the method with this reason (410 Gone)
}

// DispatchQueue is what the dispatcher needs from the store.
type DispatchQueue interface {
	// EscalateDue moves unacknowledged messages whose next_escalation_at has passed to their
	// next level, enqueuing that level's deliveries.
	EscalateDue(ctx context.Context, now time.Time, limit int) (int, error)
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*ClaimedDelivery, error)
	RecordDeliveryOutcomes(ctx context.Context, outcomes []DeliveryOutcome) error
	ReleaseDeliveries(ctx context.Context, ds []*ClaimedDelivery, now time.Time) error
}
