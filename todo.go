package answerdesk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// To Do delivery types.
const (
	DeliverySMS            = "sms"
	DeliveryEmail          = "email"
	DeliveryCall           = "call"
	DeliveryAIOutboundCall = "ai_outbound_call"
)

// DeliveryTypes lists every delivery type.
var DeliveryTypes = []string{DeliverySMS, DeliveryEmail, DeliveryCall, DeliveryAIOutboundCall}

// FeatureAIOutboundCall is the --feature name that enables ai_outbound_call To Dos.
const FeatureAIOutboundCall = "ai-outbound-call"

// ToDo is a scheduled outbound task (the To Dos docs page).
type ToDo struct {
	ID                            int64         `json:"id" jsonschema:"Integer id of the To Do."`
	AccountNumber                 string        `json:"account_number" jsonschema:"Number of the account the To Do runs against (the account_number it was created with)."`
	Name                          string        `json:"name" jsonschema:"Label of the To Do. Defaults to the creation timestamp (ISO 8601, UTC) when none was given. The subject of an email To Do without subject."`
	PhoneID                       *int64        `json:"phone_id" jsonschema:"Id of the account's phone number the To Do runs against: the from number of an sms, the number with the AI assistant of an ai_outbound_call, otherwise the account's main (first) number. Outbound calls show it as caller ID unless the service sets one. null when the account has no number."`
	DeliveryType                  string        `json:"delivery_type" jsonschema:"How the To Do is delivered: sms, email, a phone call (call: the instructions are read to contact, or handled by a live agent when there is no contact), or a call placed by the account's AI assistant (ai_outbound_call). Always lower case."`
	Contact                       *string       `json:"contact" jsonschema:"Recipient: a phone number in E.164 (sms, call, ai_outbound_call) or an email address (email). null for a call task without a number."`
	MessageText                   *string       `json:"message_text" jsonschema:"Body of the SMS or email."`
	Instructions                  *string       `json:"instructions" jsonschema:"What the agent or AI assistant says on the call (call, ai_outbound_call)."`
	From                          *string       `json:"from" jsonschema:"Sending number of an sms, as stored: a leading +1 is stripped (+15555550100 is shown as 5555550100). null for other delivery types."`
	FromEmail                     *string       `json:"from_email" jsonschema:"Sending address of an email, in lower case."`
	SenderName                    *string       `json:"sender_name" jsonschema:"Display name of the email's sender."`
	Subject                       *string       `json:"subject" jsonschema:"Subject line of the email; when null the email goes out with the To Do's name as subject."`
	ProviderAuthenticatedDomainID *int64        `json:"provider_authenticated_domain_id" jsonschema:"Id of the account's authenticated sending domain that from_email is on (email only)."`
	AIAssistantID                 *string       `json:"ai_assistant_id" jsonschema:"Id of the AI assistant that places the call (ai_outbound_call only)."`
	Times                         []string      `json:"times" jsonschema:"The schedule's times, HH:MM in the account's time zone; the same as schedule.times. Empty for an immediately To Do."`
	IsSending                     bool          `json:"is_sending" jsonschema:"true while an occurrence of the To Do is being delivered (in flight to the provider); false otherwise."`
	State                         string        `json:"state" jsonschema:"Where the To Do is in its lifecycle: active (it has a next occurrence, or one is being sent), paused (nothing is sent until resumed; next_occurrence is null), completed (nothing left: a one-off that was sent, a recurrence that ended) or cancelled (stopped for good; still readable)."`
	CreatedAt                     Time          `json:"created_at" jsonschema:"When the To Do was created."`
	UpdatedAt                     Time          `json:"updated_at" jsonschema:"When the To Do last changed, its delivery state included."`
	Schedule                      ToDoSchedule  `json:"schedule"`
	LastDelivery                  *LastDelivery `json:"last_delivery" jsonschema:"Outcome of the latest delivery attempt: null until the first attempt."`

	AccountID   int64  `json:"-"`
	AccountName string `json:"-"`
	PhoneNumber string `json:"-"` // E.164 number of PhoneID: the caller ID of calls
}

// Occurrence is one scheduled firing of a To Do, claimed by the scheduler for delivery.
type Occurrence struct {
	ID          int64
	ToDo        *ToDo
	ScheduledAt time.Time
	// Key identifies the occurrence across retries and restarts (To Do id and scheduled
	// time); channels pass it on as an idempotency key where the provider takes one.
	Key      string
	Attempts int // attempts made before this one
}

// ToDoSchedule is the schedule object of a To Do.
type ToDoSchedule struct {
	ID                 int64          `json:"id" jsonschema:"Id of the schedule."`
	SchedulableID      int64          `json:"schedulable_id" jsonschema:"Id of the To Do the schedule belongs to."`
	SchedulableType    string         `json:"schedulable_type" jsonschema:"Kind of object the schedule belongs to: always ToDo here."`
	Rule               map[string]any `json:"rule" jsonschema:"The stored schedule, a free-form object in one of three shapes. immediately: {rule, tz}. today: {rule, tz, date, times}, date being the account's calendar day of creation. Recurring: {rrule, tz, dtstart, frequency, interval, days, times, until, count, skip_dates}, rrule being RFC 5545 RRULE values, one per line (one per distinct minute of times), evaluated in tz from dtstart (local midnight of the day of creation); days is present only for weekly and monthly schedules. Read it for display; next_occurrence already applies it."`
	Times              []string       `json:"times" jsonschema:"Times HH:MM in the account's time zone, as given on create (normalized to two-digit hours). Empty for immediately."`
	PreviousOccurrence *Time          `json:"previous_occurrence" jsonschema:"Scheduled time of the latest occurrence that came due (UTC); null before the first. See last_delivery for how its delivery went."`
	NextOccurrence     *Time          `json:"next_occurrence" jsonschema:"When the To Do is next sent (UTC); null once no occurrence is left (an immediately or today To Do after its last one came due)."`
	// Upcoming are the next UpcomingOccurrences occurrences from next_occurrence on,
	// computed in the schedule's time zone; empty when nothing is due (paused, cancelled,
	// completed).
	Upcoming  []Time `json:"upcoming" jsonschema:"The next five occurrences from next_occurrence on (fewer when the schedule ends sooner), computed in the schedule's time zone and written in UTC; empty when the To Do is not active."`
	CreatedAt Time   `json:"created_at" jsonschema:"When the schedule was created (with its To Do)."`
	UpdatedAt Time   `json:"updated_at" jsonschema:"When the schedule last advanced."`
}

// To Do states (the To Dos docs page).
const (
	ToDoActive    = "active"    // has a next occurrence, or one in flight
	ToDoPaused    = "paused"    // nothing is sent until it is resumed
	ToDoCompleted = "completed" // no further occurrence: a one-off that was sent, or an ended recurrence
	ToDoCancelled = "cancelled" // stopped for good; still readable with its history
)

// ToDoStates lists every To Do state.
var ToDoStates = []string{ToDoActive, ToDoPaused, ToDoCompleted, ToDoCancelled}

// ToDoFilter selects a page of To Dos; an empty State means every state.
type ToDoFilter struct {
	Paging
	State string
}

// ReadToDoFilter reads and checks the parameters of a To Do list (page, page_size, state),
// adding every bad one to v, so that GET /api/v2/to-dos and the list_to_dos tool give one
// verdict: a page that is not a number and an unknown state are both reported.
func ReadToDoFilter(p Params, v *ValidationErrors) ToDoFilter {
	f := ToDoFilter{Paging: ReadPaging(p, v, DefaultToDoPageSize, MaxToDoPageSize)}
	f.State = CheckToDoState(v, p.Text("state"))
	return f
}

// CheckToDoState validates the state filter of a To Do list into v.
func CheckToDoState(v *ValidationErrors, state string) string {
	if state != "" && !slices.Contains(ToDoStates, state) {
		v.Add("state", mustBeOneOf(ToDoStates))
		return ""
	}
	return state
}

// Delivery outcomes of a To Do occurrence.
const (
	DeliverySent    = "sent"
	DeliveryFailed  = "failed"
	DeliverySkipped = "skipped"
)

// LastDelivery is the outcome of a To Do's latest delivery attempt.
type LastDelivery struct {
	Status  string  `json:"status" jsonschema:"sent: the provider accepted the SMS, email or call. failed: the attempt failed; after a temporary error it is retried, and the retry's outcome replaces this one. skipped: the occurrence was missed while the service was not running (of several missed occurrences only the latest is sent)."`
	Channel string  `json:"channel" jsonschema:"How it was delivered: smtp (email), twilio (SMS and calls over a Twilio-compatible API) or outbox (no provider is configured for this kind of delivery, or a call task without a number: the delivery is recorded for an agent instead of sent)."`
	At      Time    `json:"at" jsonschema:"When the attempt ended (for skipped: when the miss was recorded)."`
	Error   *string `json:"error" jsonschema:"Why the attempt failed or was skipped (up to 2000 bytes); null when it was sent."`
}

// ToDo list limits.
const (
	DefaultToDoPageSize = 10
	MaxToDoPageSize     = 100
)

// ToDoCreate is a parsed request to create a To Do. The checks that need the account (SMS
// numbers, sending domains, blacklist, assistant, time zone) are the store's.
type ToDoCreate struct {
	AccountNumber string
	DeliveryType  string
	Name          string
	Contact       string
	MessageText   string
	Instructions  string
	From          string // leading +1 stripped
	FromEmail     string // lower case
	SenderName    string
	SubjectLine   string
	Schedule      ScheduleInput
}

// Length limits of To Do fields.
const (
	MaxToDoNameLength     = 200
	MaxSMSLength          = 1600
	MaxEmailBodyLength    = 100_000
	MaxInstructionsLength = 4000
	MaxSubjectLength      = 998

	MaxAccountNumberLength = 64  // characters of an account number given as input
	MaxPhoneLength         = 32  // characters of a phone number given as input
	MaxAddressLength       = 320 // characters of an email address or a contact given as input
	MaxSenderNameLength    = 200
	MaxCodeLength          = 32 // characters of an enumerated value given as input (delivery_type, origin)
)

// ToDoCreateRequest is the body of POST /api/v2/to-dos: one flat object. Strings are
// trimmed (blank counts as missing); which properties are required besides these depends
// on delivery_type.
type ToDoCreateRequest struct {
	AccountNumber Opt[string]          `json:"account_number" jsonschema:"Number of the account the To Do runs against. Always required; you must be an admin or a member of the account."`
	DeliveryType  Opt[string]          `json:"delivery_type" jsonschema:"sms, email, call or ai_outbound_call, matched case-insensitively. ai_outbound_call is 422 feature_unavailable unless the server runs with --feature ai-outbound-call."`
	Schedule      Opt[ScheduleRequest] `json:"schedule"`
	ToDoDetails
}

// RequiredByDeliveryType lists, for each delivery type, the To Do properties a create (or
// an update merged onto a To Do) must give as non-blank strings; the API reference's
// conditions on ToDoCreateRequest are made from it.
var RequiredByDeliveryType = map[string][]string{
	DeliverySMS:            {"from", "contact", "message_text"},
	DeliveryEmail:          {"contact", "message_text", "from_email"},
	DeliveryCall:           {"instructions"},
	DeliveryAIOutboundCall: {"contact", "instructions"},
}

// ToDoUpdateRequest is the body of PATCH /api/v2/to-dos/{id}: the properties it names
// change, the others stay. It is what ParseToDoPatch decodes, so the document and the
// parser read one list of properties. account_number and delivery_type decide which
// account and which channel a To Do is: they are read only to be refused, even as null
// (the tag refused, which ParseToDoPatch and the API reference both read).
type ToDoUpdateRequest struct {
	AccountNumber Opt[string]          `json:"account_number,omitzero" refused:"true" jsonschema:"Cannot be changed: naming it (even as null) is a 422 on account_number. Cancel the To Do and create a new one."`
	DeliveryType  Opt[string]          `json:"delivery_type,omitzero" refused:"true" jsonschema:"Cannot be changed: naming it (even as null) is a 422 on delivery_type. Cancel the To Do and create a new one."`
	Schedule      Opt[ScheduleRequest] `json:"schedule,omitzero" null:"refused"`
	ToDoDetails
}

// ToDoDetails are the optional properties of a To Do's create or update body.
type ToDoDetails struct {
	Name         Opt[string] `json:"name,omitzero" jsonschema:"Label. Defaults to the creation timestamp."`
	Contact      Opt[string] `json:"contact,omitzero" jsonschema:"Recipient. sms, call, ai_outbound_call: a phone number (ten digits are a North American number; else + and the country code; spaces, ( ) - . allowed), stored in E.164. email: a bare email address. Required for sms, email and ai_outbound_call; optional for call (without it the call is a task for a live agent)."`
	MessageText  Opt[string] `json:"message_text,omitzero" jsonschema:"Body of the SMS (at most 1600 characters) or email (plain text). Required for sms and email."`
	Instructions Opt[string] `json:"instructions,omitzero" jsonschema:"What the agent or AI assistant says. Required for call and ai_outbound_call."`
	From         Opt[string] `json:"from,omitzero" jsonschema:"sms: the sending number, one of the account's SMS-enabled numbers. A leading +1 is stripped before the check and in the stored To Do. Required for sms."`
	FromEmail    Opt[string] `json:"from_email,omitzero" jsonschema:"email: the sending address, lower-cased. Must not be blacklisted, and its domain must be an authenticated sending domain of the account. Required for email."`
	SenderName   Opt[string] `json:"sender_name,omitzero" jsonschema:"email: display name of the sender."`
	Subject      Opt[string] `json:"subject,omitzero" jsonschema:"email: subject line; defaults to the To Do's name."`
}

// ParseToDoCreate reads the body of a create request (a ToDoCreateRequest). Every field is
// type-checked, and every bad field is reported at once.
func ParseToDoCreate(body []byte) (*ToDoCreate, error) {
	return ParseToDoCreateFor(nil, body)
}

// ParseToDoCreateFor reads a create body as ParseToDoCreate does, but a delivery type the
// server does not offer (offered returns an error for it: ToDoService.DeliveryTypeOffered)
// is refused before anything else is checked: ai_outbound_call on a server without the
// feature is 422 feature_unavailable whatever else the body lacks, since completing the
// body would not help. A nil offered offers every type.
func ParseToDoCreateFor(offered func(deliveryType string) error, body []byte) (*ToDoCreate, error) {
	var in ToDoCreateRequest
	if err := decodeBody(body, &in, errNotObject); err != nil {
		return nil, err
	}
	if offered != nil && in.DeliveryType.Set {
		if err := offered(strings.ToLower(strings.TrimSpace(in.DeliveryType.Value))); err != nil {
			return nil, err
		}
	}
	return toDoFields(&in, true)
}

// toDoFields validates a create body (or an update merged onto a To Do, where the
// schedule may be left as it is).
func toDoFields(in *ToDoCreateRequest, scheduleRequired bool) (*ToDoCreate, error) {
	var v ValidationErrors
	str := func(name string, o Opt[string], max int) string {
		s, _ := v.text(name, o, max)
		return strings.TrimSpace(s)
	}
	t := &ToDoCreate{
		AccountNumber: str("account_number", in.AccountNumber, MaxAccountNumberLength),
		DeliveryType:  strings.ToLower(str("delivery_type", in.DeliveryType, MaxCodeLength)),
		Name:          str("name", in.Name, MaxToDoNameLength),
		Contact:       str("contact", in.Contact, MaxAddressLength),
		MessageText:   str("message_text", in.MessageText, MaxEmailBodyLength),
		Instructions:  str("instructions", in.Instructions, MaxInstructionsLength),
		From:          str("from", in.From, MaxPhoneLength),
		FromEmail:     strings.ToLower(str("from_email", in.FromEmail, MaxAddressLength)),
		SenderName:    str("sender_name", in.SenderName, MaxSenderNameLength),
		SubjectLine:   str("subject", in.Subject, MaxSubjectLength),
	}
	if t.AccountNumber == "" && !v.Has("account_number") {
		v.Add("account_number", "is required")
	}
	// An email's subject and sender name are header lines, and the name is the subject of
	// an email without one: a line break in them is refused, not encoded into the header.
	for _, f := range []struct{ name, value string }{{"name", t.Name}, {"sender_name", t.SenderName}, {"subject", t.SubjectLine}} {
		if strings.ContainsAny(f.value, "\r\n") && !v.Has(f.name) {
			v.Add(f.name, "must be one line: no line breaks")
		}
	}
	switch {
	case v.Has("delivery_type"):
	case t.DeliveryType == "":
		v.Add("delivery_type", "is required: one of "+strings.Join(DeliveryTypes, ", "))
	case !slices.Contains(DeliveryTypes, t.DeliveryType):
		v.Add("delivery_type", mustBeOneOf(DeliveryTypes)+" (any case)")
	}
	values := map[string]string{"from": t.From, "contact": t.Contact, "message_text": t.MessageText, "from_email": t.FromEmail, "instructions": t.Instructions}
	for _, f := range RequiredByDeliveryType[t.DeliveryType] {
		if values[f] == "" && !v.Has(f) {
			v.Add(f, "is required when delivery_type is "+t.DeliveryType)
		}
	}
	switch t.DeliveryType {
	case DeliverySMS, DeliveryAIOutboundCall, DeliveryCall:
		if t.Contact != "" {
			if p, ok := NormalizePhone(t.Contact); ok {
				t.Contact = p
			} else if !v.Has("contact") {
				v.Add("contact", "must be a phone number, e.g. +15555550123")
			}
		}
	case DeliveryEmail:
		if t.Contact != "" && !v.Has("contact") && !IsEmailAddress(t.Contact) {
			v.Add("contact", "must be an email address")
		}
	}
	// Fields of other channels are dropped, so a To Do never shows a value it does not use.
	switch t.DeliveryType {
	case DeliverySMS:
		t.FromEmail, t.SenderName, t.SubjectLine, t.Instructions = "", "", "", ""
	case DeliveryEmail:
		t.From, t.Instructions = "", ""
	case DeliveryCall, DeliveryAIOutboundCall:
		t.From, t.FromEmail, t.SenderName, t.SubjectLine, t.MessageText = "", "", "", "", ""
	}
	if t.DeliveryType == DeliverySMS {
		if utf8.RuneCountInString(t.MessageText) > MaxSMSLength {
			v.Add("message_text", fmt.Sprintf("must be at most %d characters for sms", MaxSMSLength))
		}
		if t.From != "" {
			// Stored without the +1; other country codes keep their E.164 form.
			if p, ok := NormalizePhone(t.From); ok {
				t.From = strings.TrimPrefix(p, "+1")
			} else if !v.Has("from") {
				v.Add("from", "must be a phone number, e.g. +15550101001")
			}
		}
	}
	if t.FromEmail != "" && !v.Has("from_email") && !IsEmailAddress(t.FromEmail) {
		v.Add("from_email", "must be an email address")
	}
	switch s := in.Schedule; {
	case s.Wrong != "":
		v.Add("schedule", "must be an object")
	case s.Set:
		t.Schedule = scheduleInput(&v, &s.Value)
	case scheduleRequired:
		v.Add("schedule", `is required: {"rule": "immediately"}, {"rule": "today", "times": ["09:30"]} or a recurring schedule`)
	}
	return t, v.Err()
}

// NormalizePhone returns a phone number in E.164 form. Ten digits are taken as a North
// American number; separators ( ) - . and spaces are allowed.
func NormalizePhone(s string) (string, bool) {
	plus := strings.HasPrefix(s, "+")
	var digits strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == '+' && i == 0:
		case strings.ContainsRune(" ()-.", r):
		default:
			return "", false
		}
	}
	d := digits.String()
	switch {
	case !plus && len(d) == 10:
		return "+1" + d, d[0] >= '2'
	case !plus && len(d) == 11 && d[0] == '1':
		return "+" + d, true
	case plus && len(d) >= 8 && len(d) <= 15 && d[0] != '0':
		return "+" + d, true
	}
	return "", false
}

// MaxEmailAddressLength is the longest email address (RFC 5321's 256-byte path less the
// angle brackets).
const MaxEmailAddressLength = 254

// IsEmailAddress reports whether s is a bare email address: what net/mail parses as an
// address with no display name, at most MaxEmailAddressLength bytes, with a dot in its
// domain. It is the one email rule: To Do contacts and senders, message emails, users and
// the blacklist (after NormalizeEmail lowers the case) all ask it.
func IsEmailAddress(s string) bool {
	if len(s) > MaxEmailAddressLength {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@")+1:], ".")
}

// ScheduleInput is the schedule object of a create request.
type ScheduleInput struct {
	Rule      string   // "immediately", "today", or "" for recurring
	Times     []string // HH:MM
	Frequency string
	Interval  *int
	Weekdays  []time.Weekday
	MonthDays []int
	// Until is the last local date (YYYY-MM-DD) a recurring schedule fires on (RFC 5545
	// UNTIL), Count its total number of occurrences (COUNT), SkipDates the local dates it
	// does not fire on (holidays).
	Until     string
	Count     *int
	SkipDates []string
}

var weekdayNames = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// ScheduleRequest is the schedule object of a To Do's create or update body.
type ScheduleRequest struct {
	Rule      Opt[string]            `json:"rule,omitzero" jsonschema:"immediately or today, matched case-insensitively; leave out (or null) for a recurring schedule."`
	Times     Opt[[]string]          `json:"times,omitzero" jsonschema:"Times of day HH:MM (00:00 to 23:59; a one-digit hour is accepted) in the account's time zone. Required for today and recurring schedules; not allowed with immediately."`
	Frequency Opt[string]            `json:"frequency,omitzero" jsonschema:"Recurring only, and required there: daily, weekly or monthly, matched case-insensitively."`
	Interval  Opt[json.Number]       `json:"interval,omitzero" jsonschema:"Recurring only: every interval days, weeks or months (2 with weekly is every other week)."`
	Days      Opt[[]json.RawMessage] `json:"days,omitzero" jsonschema:"Recurring only. weekly (required): weekday names, any case, e.g. [\"monday\", \"wednesday\"]. monthly (required): days of the month 1 to 31, e.g. [1, 15]. Not allowed for daily."`
	Until     Opt[string]            `json:"until,omitzero" jsonschema:"Recurring only: the last date (YYYY-MM-DD, in the account's time zone) the To Do may fire on, inclusive (RFC 5545 UNTIL). Not before today, at most 100 years away; not with count."`
	Count     Opt[json.Number]       `json:"count,omitzero" jsonschema:"Recurring only: how many occurrences in all, counted from creation (or from the PATCH that set this schedule); skipped dates count too (RFC 5545 COUNT, before exclusions). Not with until."`
	SkipDates Opt[[]string]          `json:"skip_dates,omitzero" jsonschema:"Recurring only: dates (YYYY-MM-DD, in the account's time zone) on which nothing is sent, e.g. holidays."`
}

// Limits of a schedule: the largest interval of a recurring one, the most times a day.
const (
	MaxScheduleInterval = 1000
	MaxScheduleTimes    = 24
)

// scheduleInput validates a schedule; its errors are on schedule.<property>.
func scheduleInput(v *ValidationErrors, in *ScheduleRequest) ScheduleInput {
	var s ScheduleInput
	scheduleRule(v, in, &s)
	scheduleRecurrence(v, in, &s)
	if s.Rule != "" {
		for _, f := range []struct {
			name  string
			given bool
		}{{"frequency", in.Frequency.Has()}, {"interval", in.Interval.Has()}, {"days", in.Days.Has()},
			{"until", in.Until.Has()}, {"count", in.Count.Has()}, {"skip_dates", in.SkipDates.Has()}} {
			if f.given {
				v.Add("schedule."+f.name, "applies only to recurring schedules (leave out rule)")
			}
		}
	}
	if s.Rule == "" && !v.Has("schedule.rule") {
		scheduleDays(v, in.Days.Value, &s)
	}
	scheduleTimes(v, &s)
	return s
}

// scheduleRule reads rule, times and frequency as given (their values are checked once
// the kind of schedule is known).
func scheduleRule(v *ValidationErrors, in *ScheduleRequest, s *ScheduleInput) {
	if in.Rule.Wrong != "" {
		v.Add("schedule.rule", "must be a string")
	} else if in.Rule.Set {
		if s.Rule = strings.ToLower(strings.TrimSpace(in.Rule.Value)); s.Rule != ScheduleImmediately && s.Rule != ScheduleToday {
			v.Add("schedule.rule", `must be "immediately" or "today", or left out for a recurring schedule`)
		}
	}
	s.Times = in.Times.Value
	if in.Times.Wrong != "" {
		v.Add("schedule.times", `must be a list of times "HH:MM"`)
	}
	if in.Frequency.Wrong != "" {
		v.Add("schedule.frequency", "must be a string")
	}
	s.Frequency = strings.ToLower(strings.TrimSpace(in.Frequency.Value))
}

// scheduleRecurrence reads the bounds of a recurring schedule: interval, days (their type
// only), until or count, and the dates skipped.
func scheduleRecurrence(v *ValidationErrors, in *ScheduleRequest, s *ScheduleInput) {
	if i, ok := v.integer("schedule.interval", in.Interval, 1, MaxScheduleInterval, fmt.Sprintf("must be an integer from 1 to %d", MaxScheduleInterval)); ok {
		iv := int(i)
		s.Interval = &iv
	}
	if in.Days.Wrong != "" {
		v.Add("schedule.days", "must be a list")
	}
	if in.Until.Wrong != "" {
		v.Add("schedule.until", `must be a date "YYYY-MM-DD"`)
	} else if u := in.Until.Value; in.Until.Set {
		if d, err := time.Parse(time.DateOnly, strings.TrimSpace(u)); err != nil {
			v.Add("schedule.until", Quote(u)+" is not a date YYYY-MM-DD")
		} else {
			s.Until = d.Format(time.DateOnly)
		}
	}
	if i, ok := v.integer("schedule.count", in.Count, 1, MaxScheduleCount, fmt.Sprintf("must be an integer from 1 to %d", MaxScheduleCount)); ok {
		c := int(i)
		s.Count = &c
	}
	if in.Until.Has() && in.Count.Has() {
		v.Add("schedule.count", "cannot be combined with until (RFC 5545): give one of them")
	}
	if dates := in.SkipDates.Value; in.SkipDates.Wrong != "" {
		v.Add("schedule.skip_dates", `must be a list of dates "YYYY-MM-DD"`)
	} else if len(dates) > MaxSkipDates {
		v.Add("schedule.skip_dates", fmt.Sprintf("must have at most %d dates", MaxSkipDates))
	} else {
		for _, x := range dates {
			d, err := time.Parse(time.DateOnly, strings.TrimSpace(x))
			if err != nil {
				v.Add("schedule.skip_dates", Quote(x)+" is not a date YYYY-MM-DD")
				break
			}
			if f := d.Format(time.DateOnly); !slices.Contains(s.SkipDates, f) {
				s.SkipDates = append(s.SkipDates, f)
			}
		}
		slices.Sort(s.SkipDates)
	}
}

// scheduleDays checks a recurring schedule's frequency and reads its days: none for daily,
// weekday names for weekly, days of the month for monthly.
func scheduleDays(v *ValidationErrors, days []json.RawMessage, s *ScheduleInput) {
	switch s.Frequency {
	case FrequencyDaily:
		if len(days) > 0 {
			v.Add("schedule.days", "does not apply to daily schedules")
		}
	case FrequencyWeekly:
		for _, d := range days {
			var name string
			wd, ok := time.Weekday(0), false
			if json.Unmarshal(d, &name) == nil {
				wd, ok = weekdayNames[strings.ToLower(strings.TrimSpace(name))]
			}
			if !ok {
				v.Add("schedule.days", "must be weekday names for weekly schedules (monday ... sunday)")
				break
			}
			if !slices.Contains(s.Weekdays, wd) {
				s.Weekdays = append(s.Weekdays, wd)
			}
		}
		if len(days) == 0 && !v.Has("schedule.days") {
			v.Add("schedule.days", `is required for weekly schedules, e.g. ["monday", "wednesday"]`)
		}
	case FrequencyMonthly:
		for _, d := range days {
			var n int
			if json.Unmarshal(d, &n) != nil || n < 1 || n > 31 {
				v.Add("schedule.days", "must be days of the month from 1 to 31 for monthly schedules")
				break
			}
			if !slices.Contains(s.MonthDays, n) {
				s.MonthDays = append(s.MonthDays, n)
			}
		}
		if len(days) == 0 && !v.Has("schedule.days") {
			v.Add("schedule.days", "is required for monthly schedules, e.g. [1, 15]")
		}
	case "":
		if !v.Has("schedule.frequency") {
			v.Add("schedule.frequency", `is required without a rule: "daily", "weekly" or "monthly"`)
		}
	default:
		if !v.Has("schedule.frequency") {
			v.Add("schedule.frequency", `must be "daily", "weekly" or "monthly"`)
		}
	}
}

// scheduleTimes checks the times of day: required (at most MaxScheduleTimes) unless the
// rule is immediately, which takes none.
func scheduleTimes(v *ValidationErrors, s *ScheduleInput) {
	if s.Rule != ScheduleImmediately && !v.Has("schedule.times") {
		if len(s.Times) == 0 {
			v.Add("schedule.times", `is required: one or more times "HH:MM"`)
		} else if len(s.Times) > MaxScheduleTimes {
			v.Add("schedule.times", fmt.Sprintf("must have at most %d times", MaxScheduleTimes))
		}
		for i, t := range s.Times {
			c, err := ParseClock(t)
			if err != nil {
				v.Add("schedule.times", Quote(t)+" is not a time HH:MM (00:00 to 23:59)")
				break
			}
			s.Times[i] = c.String()
		}
	}
	if s.Rule == ScheduleImmediately && len(s.Times) > 0 {
		v.Add("schedule.times", "does not apply to immediately")
	}
}

// Attempt outcomes recorded by the scheduler.
const (
	AttemptSent    = "sent"
	AttemptFailed  = "failed"  // permanent, or the last retry
	AttemptRetry   = "retry"   // transient; the occurrence is tried again at RetryAt
	AttemptSkipped = "skipped" // missed while the service was down
)

// AttemptResult is the outcome of one delivery attempt of an occurrence.
type AttemptResult struct {
	Occurrence *Occurrence
	Channel    string
	Status     string
	ProviderID string
	Error      string
	At         time.Time
	Duration   time.Duration
	RetryAt    time.Time // with AttemptRetry
}

// ToDoQueue is what the scheduler needs from the store. Work lives in the database: a
// claimed occurrence carries a lease, so a crashed worker's occurrences are taken over when
// it expires and two schedulers never hold the same one.
type ToDoQueue interface {
	// MaterializeDue turns schedules whose next occurrence has come into pending
	// occurrences, records missed ones as skipped (channelFor names the channel a delivery
	// type would have used), and advances the schedules. It returns how many it handled.
	MaterializeDue(ctx context.Context, now time.Time, limit int, channelFor func(deliveryType string) string) (int, error)
	// ClaimOccurrences leases up to limit occurrences that are due (or whose lease expired).
	ClaimOccurrences(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*Occurrence, error)
	// RecordAttempts stores the outcomes and settles the occurrences, in one transaction.
	RecordAttempts(ctx context.Context, results []AttemptResult) error
	// ReleaseOccurrences gives back occurrences whose delivery never started or was cut off
	// before the provider answered, so they are tried again at once.
	ReleaseOccurrences(ctx context.Context, occs []*Occurrence, now time.Time) error
	// StartOccurrence is asked right before a claimed occurrence is handed to its channel.
	// It answers false when the occurrence must not start: its To Do was paused or
	// cancelled after the claim (the occurrence is then settled as skipped), its sender
	// was withdrawn from the account (settled as failed, with the reason), or another
	// scheduler took the claim over. When it answers true and the lease is half spent, the
	// lease is renewed from now.
	StartOccurrence(ctx context.Context, o *Occurrence, now time.Time, lease time.Duration) (bool, error)
}

// ToDoService creates, reads and changes To Dos. Admins see every To Do; other users those
// of their accounts' phones.
type ToDoService interface {
	// DeliveryTypeOffered returns nil for a delivery type this server sends (or one that
	// is not a delivery type at all, which validation reports), and a feature_unavailable
	// error for one it has not enabled.
	DeliveryTypeOffered(deliveryType string) error
	CreateToDo(ctx context.Context, c *Caller, t *ToDoCreate) (*ToDo, error)
	FindToDos(ctx context.Context, c *Caller, f ToDoFilter) ([]*ToDo, PageMeta, error)
	FindToDo(ctx context.Context, c *Caller, id string) (*ToDo, error)
	// UpdateToDo applies a partial update, validated as a create of the merged result.
	UpdateToDo(ctx context.Context, c *Caller, id string, p *ToDoPatch) (*ToDo, error)
	// PauseToDo, ResumeToDo and CancelToDo move a To Do through its lifecycle; each is
	// idempotent and safe against the scheduler running at the same moment.
	PauseToDo(ctx context.Context, c *Caller, id string) (*ToDo, error)
	ResumeToDo(ctx context.Context, c *Caller, id string) (*ToDo, error)
	CancelToDo(ctx context.Context, c *Caller, id string) (*ToDo, error)
	// FindToDoDeliveries returns a page of a To Do's occurrences with their attempts.
	FindToDoDeliveries(ctx context.Context, c *Caller, id string, p Paging) ([]*ToDoDelivery, PageMeta, error)
}
