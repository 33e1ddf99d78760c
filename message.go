package answerdesk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Message origins, the channel a message came in on.
const (
	OriginCall   = "CALL"
	OriginAICall = "AI_CALL"
	OriginChat   = "CHAT"
	OriginSMS    = "SMS"
	OriginEmail  = "EMAIL"
	OriginWeb    = "WEB"
	OriginAPI    = "API"
)

// Origins lists every origin value.
var Origins = []string{OriginCall, OriginAICall, OriginChat, OriginSMS, OriginEmail, OriginWeb, OriginAPI}

// Message statuses: new -> delivered (reached an on-call contact) -> acknowledged.
const (
	StatusNew          = "new"
	StatusDelivered    = "delivered"
	StatusAcknowledged = "acknowledged"
)

// Statuses lists every status value.
var Statuses = []string{StatusNew, StatusDelivered, StatusAcknowledged}

// NonMessageTypes lists the values of non_message_type (which may also be null).
var NonMessageTypes = []string{"hang_up", "wrong_number", "spam", "info_only"}

// Message is a message taken by the service (the Messages docs page). Optional values are
// pointers so that absent values encode as null.
type Message struct {
	ID                   int64   `json:"id" jsonschema:"Integer id of the message."`
	UUID                 string  `json:"uuid" jsonschema:"Stable UUID of the message; usable wherever a message id is accepted."`
	AccountID            int64   `json:"account_id" jsonschema:"Id of the account the message belongs to."`
	AgentID              *int64  `json:"agent_id" jsonschema:"Id of the agent who took the message."`
	UserID               *int64  `json:"user_id" jsonschema:"Id of the user who created the message, when it was created through the API."`
	PickupUserID         *int64  `json:"pickup_user_id" jsonschema:"Id of the user who picked the message up."`
	ContactID            *int64  `json:"contact_id" jsonschema:"Id of the contact the message is about."`
	DeliveredBy          *int64  `json:"delivered_by" jsonschema:"Id of the user or agent who delivered the message."`
	DeliveredTo          *int64  `json:"delivered_to" jsonschema:"Id of the on-call contact the message was delivered to."`
	SaleID               *int64  `json:"sale_id" jsonschema:"Id of the related sale."`
	DidID                *int64  `json:"did_id" jsonschema:"Id of the phone number (DID) the call or message came in on."`
	EscalationLevelID    *int64  `json:"escalation_level_id" jsonschema:"Id of the escalation level the message is at."`
	ActivitiesCount      int64   `json:"activities_count" jsonschema:"Number of activities recorded on the message."`
	ClosingActionGroupID *int64  `json:"closing_action_group_id" jsonschema:"Id of the closing action group."`
	EscalationCounter    int64   `json:"escalation_counter" jsonschema:"Number of times the message escalated to a further level."`
	CallID               *int64  `json:"call_id" jsonschema:"Id of the call the message was taken on; its recording is at /api/v2/messages/{id}/call-recording."`
	ChatSessionID        *int64  `json:"chat_session_id" jsonschema:"Id of the chat session the message was taken in."`
	ToDoTaskID           *int64  `json:"to_do_task_id" jsonschema:"Id of the To Do that produced the message."`
	PhoneNumber          *string `json:"phone_number" jsonschema:"Phone number of the caller."`
	Extension            *string `json:"extension" jsonschema:"Phone extension."`
	CallerID             *string `json:"caller_id" jsonschema:"Caller ID of the call."`
	FirstName            *string `json:"first_name" jsonschema:"Caller's first name."`
	LastName             *string `json:"last_name" jsonschema:"Caller's last name."`
	CompanyName          *string `json:"company_name" jsonschema:"Caller's company."`
	Content              string  `json:"content" jsonschema:"Full message text."`
	Status               string  `json:"status" jsonschema:"Delivery state: new, then delivered (it reached at least one on-call contact), then acknowledged."`
	IVR                  *string `json:"ivr" jsonschema:"IVR option the caller chose."`
	Phone                *string `json:"phone" jsonschema:"Callback phone number."`
	Email                *string `json:"email" jsonschema:"Caller's email address."`
	CallRefID            *string `json:"call_ref_id" jsonschema:"Reference id of the call."`
	Note                 *string `json:"note" jsonschema:"Internal note."`
	Address              *string `json:"address" jsonschema:"Street address."`
	Address2             *string `json:"address2" jsonschema:"Second address line."`
	City                 *string `json:"city" jsonschema:"City."`
	State                *string `json:"state" jsonschema:"State or region."`
	Zip                  *string `json:"zip" jsonschema:"Postal code."`
	HowYouHearAboutUs    *string `json:"how_you_hear_about_us" jsonschema:"How the caller heard about the business."`
	AltPhone             *string `json:"alt_phone" jsonschema:"Alternative phone number."`
	ReceiverName         *string `json:"receiver_name" jsonschema:"Name of the person the message is for."`
	NonMessageType       *string `json:"non_message_type" jsonschema:"Set when the contact was not a real message (for example a hang-up); null otherwise."`
	EmailSubject         *string `json:"email_subject" jsonschema:"Subject line, for messages taken from email."`
	Origin               string  `json:"origin" jsonschema:"Channel the message came in on."`
	Disposition          *string `json:"disposition" jsonschema:"Call disposition."`
	KlassNames           *string `json:"klass_names" jsonschema:"Classification names of the message."`
	Read                 bool    `json:"read" jsonschema:"Whether the message is marked as read."`
	IsEmergency          bool    `json:"is_emergency" jsonschema:"Whether the message was flagged as an emergency."`
	PositiveDataDip      bool    `json:"positive_data_dip" jsonschema:"Whether a data lookup on the caller matched."`
	FromToDo             bool    `json:"from_to_do" jsonschema:"Whether the message was produced by a To Do."`
	CreatedAt            Time    `json:"created_at" jsonschema:"When the message was created."`
	UpdatedAt            Time    `json:"updated_at" jsonschema:"When the message last changed."`
	PickupDate           *Time   `json:"pickup_date" jsonschema:"When the message was picked up."`
	DeliveredAt          *Time   `json:"delivered_at" jsonschema:"When the message was first delivered to an on-call contact."`
	NextEscalationAt     *Time   `json:"next_escalation_at" jsonschema:"When the message escalates to the next level unless acknowledged first."`
	MessageReceivedDate  *Time   `json:"message_received_date" jsonschema:"When the message was received."`
	SendAt               *Time   `json:"send_at" jsonschema:"When a scheduled message is to be sent."`
	AcknowledgedAt       *Time   `json:"acknowledged_at" jsonschema:"When the message was acknowledged (PATCH /api/v2/messages/{id}/acknowledge)."`
	// Answers is the JSON object of script answers, kept as stored: decoding it for every
	// row of a list only to encode it again was 5% of a list request.
	Answers json.RawMessage `json:"answers" jsonschema:"Answers to the script's questions, keyed by question name. Empty object when there are none."`
}

// MessageFields are the JSON names of Message's fields, in order: the message object's
// properties (and, in store, its table's columns).
var MessageFields = sync.OnceValue(func() []string {
	var names []string
	t := reflect.TypeFor[Message]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
})

// MessageFilter is a request for one page of messages. Dates are the MM-DD-YYYY strings
// the caller gave; Validate parses them.
type MessageFilter struct {
	Origin    string
	Status    string
	StartDate string
	EndDate   string
	Read      *bool
	Q         string // words and phone numbers to search for
	CallerID  string // the caller's number
	Page      *int
	PageSize  *int
}

// ReadMessageFilter reads the parameters of a message list (GET /api/v2/messages,
// list_messages).
func ReadMessageFilter(p Params) MessageFilter {
	return MessageFilter{
		Origin: p.Text("origin"), Status: p.Text("status"),
		StartDate: p.Text("start_date"), EndDate: p.Text("end_date"),
		Read: p.Bool("read"), Q: p.Text("q"), CallerID: p.Text("caller_id"),
		Page: p.Int("page"), PageSize: p.Int("page_size"),
	}
}

// Message list limits.
const (
	DefaultMessagePageSize = 50
	MaxMessagePageSize     = 200
	DefaultRecentLimit     = 20
	MaxRecentLimit         = 100
	// MaxMessageSearchLength bounds q, in characters.
	MaxMessageSearchLength = 200
)

// MessageQuery is a validated MessageFilter, ready for a store.
type MessageQuery struct {
	Origin string // upper case, or empty
	Status string // or empty
	Since  int64  // unix milliseconds, inclusive; 0 when unbounded
	Until  int64  // unix milliseconds, exclusive; 0 when unbounded
	Read   *bool
	// Words must each be in the message's words: a word of three characters or more as the
	// start of one, a shorter one as a whole word. Lower case.
	Words []string
	// Phones must each be one of the message's numbers (caller_id, phone, alt_phone,
	// phone_number), as PhoneDigits writes them.
	Phones []string
	// CallerID, when set, is the caller's number as PhoneDigits writes it.
	CallerID string
	Paging
}

// Searching reports whether q searches by words or numbers (and so cannot be counted from
// the per-day rollup).
func (q MessageQuery) Searching() bool {
	return len(q.Words) > 0 || len(q.Phones) > 0 || q.CallerID != ""
}

// Validate checks every filter value and returns the query it describes.
func (f MessageFilter) Validate() (MessageQuery, error) {
	var v ValidationErrors
	q := MessageQuery{Status: f.Status, Read: f.Read}
	if f.Origin != "" {
		q.Origin = strings.ToUpper(f.Origin)
		if !slices.Contains(Origins, q.Origin) {
			v.Add("origin", mustBeOneOf(Origins)+" (any case)")
		}
	}
	if f.Status != "" && !slices.Contains(Statuses, f.Status) {
		v.Add("status", mustBeOneOf(Statuses))
	}
	q.Since, q.Until = DateRange(&v, "start_date", f.StartDate, "end_date", f.EndDate)
	if f.Q != "" {
		if n := utf8.RuneCountInString(f.Q); n > MaxMessageSearchLength {
			v.Add("q", fmt.Sprintf("must be at most %d characters (it has %d)", MaxMessageSearchLength, n))
		} else if q.Words, q.Phones = SearchTerms(f.Q); len(q.Words) == 0 && len(q.Phones) == 0 {
			v.Add("q", "has no words or phone numbers to search for")
		}
	}
	if f.CallerID != "" {
		if q.CallerID = PhoneDigits(f.CallerID); len(q.CallerID) < minPhoneDigits || len(f.CallerID) > MaxPhoneLength {
			v.Add("caller_id", "must be a phone number, e.g. +1 555 555 0142")
		}
	}
	q.Paging = CheckPaging(&v, f.Page, f.PageSize, DefaultMessagePageSize, MaxMessagePageSize)
	return q, v.Err()
}

// minPhoneDigits is the fewest digits a run of q needs to be read as a phone number (a
// local number without its area code); fewer are a word.
const minPhoneDigits = 7

// phoneSeparators are what people write between a phone number's digits.
const phoneSeparators = " -().+/"

// PhoneDigits is a phone number as message search compares them: its digits, without the
// separators people write (" -().+/"), and without the leading 1 of an 11-digit number
// (+1, the North American country code). The database computes the same of each message's
// numbers.
func PhoneDigits(s string) string {
	d := strings.Map(func(r rune) rune {
		if strings.ContainsRune(phoneSeparators, r) {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	if len(d) == 11 && d[0] == '1' {
		d = d[1:]
	}
	return d
}

// SearchTerms splits a message search into its phone numbers (a run of digits and
// separators holding at least minPhoneDigits digits, as PhoneDigits writes it) and its
// words (letters and digits, lower case), each once, in order.
func SearchTerms(q string) (words, phones []string) {
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		if unicode.IsDigit(r) || r == '+' || r == '(' {
			// A phone number: the longest run of digits and separators from here.
			j, digits := i, 0
			for j < len(rs) && (unicode.IsDigit(rs[j]) || strings.ContainsRune(phoneSeparators, rs[j])) {
				if unicode.IsDigit(rs[j]) {
					digits++
				}
				j++
			}
			if digits >= minPhoneDigits {
				if p := PhoneDigits(string(rs[i:j])); !slices.Contains(phones, p) {
					phones = append(phones, p)
				}
				i = j
				continue
			}
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i++
			continue
		}
		j := i
		for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || unicode.Is(unicode.Mn, rs[j])) {
			j++
		}
		if w := strings.ToLower(string(rs[i:j])); !slices.Contains(words, w) {
			words = append(words, w)
		}
		i = j
	}
	return words, phones
}

// CheckRecentLimit validates the limit of the recent-messages list (nil means default).
func CheckRecentLimit(limit *int) (int, error) {
	if limit == nil {
		return DefaultRecentLimit, nil
	}
	if *limit < 1 || *limit > MaxRecentLimit {
		return 0, FieldErr("limit", fmt.Sprintf("must be an integer between 1 and %d", MaxRecentLimit))
	}
	return *limit, nil
}

// MessageCreate is a validated request to create a message.
type MessageCreate struct {
	AccountNumber     string
	Content           string
	Origin            string
	EscalationLevelID *int64
	IsEmergency       bool
	Answers           map[string]any
	// CallID links the message to its call; set by call ingestion, never from API input.
	CallID *int64
	// Strings holds the optional string fields by their JSON name (caller_id, email, ...).
	Strings map[string]string
}

// MessageCreateRequest is the "message" object of a create request (the body is
// {"message": {...}}). Any properties are accepted: the known ones are type-checked, unknown
// ones ignored, and null is the same as leaving a property out.
type MessageCreateRequest struct {
	Content           Opt[string]          `json:"content" jsonschema:"Message text. Required, must not be blank."`
	AccountNumber     Opt[string]          `json:"account_number,omitzero" jsonschema:"Number of the account to create the message on. Required unless you are a member of exactly one account; you must be a member of it (or an admin)."`
	Origin            Opt[string]          `json:"origin,omitzero" jsonschema:"Channel the message came in on, matched case-insensitively. Defaults to AI_CALL when from_ai_assistant is true, else API."`
	EscalationLevelID Opt[json.Number]     `json:"escalation_level_id,omitzero" jsonschema:"Escalation level to start the message at."`
	FromAIAssistant   Opt[bool]            `json:"from_ai_assistant,omitzero" jsonschema:"The message was taken by an AI assistant; sets origin to AI_CALL when origin is not given."`
	IsEmergency       Opt[bool]            `json:"is_emergency,omitzero" jsonschema:"Flag the message as an emergency. Default false."`
	Answers           Opt[json.RawMessage] `json:"answers,omitzero" jsonschema:"Answers to script questions, keyed by question name (at most 100 questions, 32 KiB of JSON, nested at most 32 deep)."`
	MessageDetails
}

// MessageDetails are the optional string properties of a new message, each at most
// MaxStringLength characters; MessageCreate.Strings holds them by name. Their descriptions
// are the ones the OpenAPI document and the create_message tool both show.
type MessageDetails struct {
	PhoneNumber       Opt[string] `json:"phone_number,omitzero" jsonschema:"The caller's phone number."`
	Extension         Opt[string] `json:"extension,omitzero" jsonschema:"The caller's phone extension."`
	CallerID          Opt[string] `json:"caller_id,omitzero" jsonschema:"The caller ID the call came from."`
	FirstName         Opt[string] `json:"first_name,omitzero" jsonschema:"The caller's first name."`
	LastName          Opt[string] `json:"last_name,omitzero" jsonschema:"The caller's last name."`
	CompanyName       Opt[string] `json:"company_name,omitzero" jsonschema:"The caller's company."`
	IVR               Opt[string] `json:"ivr,omitzero" jsonschema:"The IVR option the caller chose."`
	Phone             Opt[string] `json:"phone,omitzero" jsonschema:"A phone number to call back."`
	Email             Opt[string] `json:"email,omitzero" jsonschema:"The caller's email address; it must be a valid address."`
	CallRefID         Opt[string] `json:"call_ref_id,omitzero" jsonschema:"Your reference of the call."`
	Note              Opt[string] `json:"note,omitzero" jsonschema:"A note for whoever reads the message."`
	Address           Opt[string] `json:"address,omitzero" jsonschema:"The caller's street address."`
	Address2          Opt[string] `json:"address2,omitzero" jsonschema:"The second line of the caller's address."`
	City              Opt[string] `json:"city,omitzero" jsonschema:"The caller's city."`
	State             Opt[string] `json:"state,omitzero" jsonschema:"The caller's state or region."`
	Zip               Opt[string] `json:"zip,omitzero" jsonschema:"The caller's postal code."`
	HowYouHearAboutUs Opt[string] `json:"how_you_hear_about_us,omitzero" jsonschema:"How the caller heard of the business."`
	AltPhone          Opt[string] `json:"alt_phone,omitzero" jsonschema:"Another phone number of the caller."`
	ReceiverName      Opt[string] `json:"receiver_name,omitzero" jsonschema:"Who the message is for."`
	NonMessageType    Opt[string] `json:"non_message_type,omitzero" jsonschema:"What the contact was when it was not a real message (for example a hang-up)."`
	EmailSubject      Opt[string] `json:"email_subject,omitzero" jsonschema:"The subject, for a message that came in by email."`
	Disposition       Opt[string] `json:"disposition,omitzero" jsonschema:"How the contact was closed."`
}

// messageStringFields are the names of MessageDetails' properties, in order.
var messageStringFields = fieldNames(reflect.TypeFor[MessageDetails]())

// MessageStringFields returns the optional string properties accepted on create.
func MessageStringFields() []string { return slices.Clone(messageStringFields) }

// Size limits on message input, generous for real messages and small enough to bound storage.
const (
	MaxContentLength = 20000
	MaxStringLength  = 1000
	MaxAnswers       = 100
	MaxAnswersBytes  = 32 << 10
	// MaxAnswersDepth bounds nesting: 32 KiB of brackets is 16,000 levels, past the
	// recursion limits of common JSON decoders (Python's is about 1,000) that read it back.
	MaxAnswersDepth = 32
)

// errMessageNotObject is the error of a create request whose "message" is not a JSON
// object: a 422 on that property, as the body around it is one.
var errMessageNotObject = FieldErr("message", "must be a JSON object")

// ParseMessageCreate reads the "message" object of a create request (a
// MessageCreateRequest). Every bad field is reported.
func ParseMessageCreate(obj json.RawMessage) (*MessageCreate, error) {
	var in MessageCreateRequest
	if err := decodeBody(obj, &in, errMessageNotObject); err != nil {
		return nil, err
	}
	var v ValidationErrors
	m := &MessageCreate{Strings: map[string]string{}}
	m.Content, _ = v.text("content", in.Content, MaxContentLength)
	if strings.TrimSpace(m.Content) == "" && !v.Has("content") {
		v.Add("content", "is required and must be a non-empty string")
	}
	if s, ok := v.text("account_number", in.AccountNumber, MaxAccountNumberLength); ok {
		m.AccountNumber = strings.TrimSpace(s)
	}
	if s, ok := v.text("origin", in.Origin, MaxCodeLength); ok {
		m.Origin = strings.ToUpper(strings.TrimSpace(s))
		if !slices.Contains(Origins, m.Origin) {
			v.Add("origin", mustBeOneOf(Origins))
		}
	}
	if v.boolean("from_ai_assistant", in.FromAIAssistant) && m.Origin == "" {
		m.Origin = OriginAICall
	}
	if m.Origin == "" {
		m.Origin = OriginAPI
	}
	m.IsEmergency = v.boolean("is_emergency", in.IsEmergency)
	if id := in.EscalationLevelID; id.Wrong != "" {
		v.Add("escalation_level_id", "must be an integer")
	} else if id.Set {
		if n, err := wholeNumber(id.Value); err != nil || n < 1 {
			v.Add("escalation_level_id", "must be a positive integer")
		} else {
			m.EscalationLevelID = &n
		}
	}
	if b := in.Answers.Value; in.Answers.Set {
		var answers map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		switch {
		case d.Decode(&answers) != nil || answers == nil:
			v.Add("answers", "must be an object of question names to answers")
		case len(answers) > MaxAnswers:
			v.Add("answers", fmt.Sprintf("must have at most %d questions", MaxAnswers))
		case len(b) > MaxAnswersBytes:
			v.Add("answers", fmt.Sprintf("must be at most %d bytes", MaxAnswersBytes))
		case jsonDepth(b) > MaxAnswersDepth:
			v.Add("answers", fmt.Sprintf("must nest objects and arrays at most %d deep", MaxAnswersDepth))
		default:
			m.Answers = answers
		}
	}
	details := reflect.ValueOf(in.MessageDetails)
	for i, name := range messageStringFields {
		if s, ok := v.text(name, details.Field(i).Interface().(Opt[string]), MaxStringLength); ok {
			m.Strings[name] = s
		}
	}
	if s, ok := m.Strings["non_message_type"]; ok && !slices.Contains(NonMessageTypes, s) {
		v.Add("non_message_type", mustBeOneOf(NonMessageTypes)+" or null")
	}
	if s, ok := m.Strings["email"]; ok && s != "" {
		if !IsEmailAddress(s) {
			v.Add("email", "must be an email address")
		}
	}
	return m, v.Err()
}

// MessageService reads and changes messages. Every method is scoped to the caller: a
// message of an account the caller cannot see is ENOTFOUND.
type MessageService interface {
	// FindMessages returns one page of the caller's messages, newest first.
	FindMessages(ctx context.Context, c *Caller, q MessageQuery) ([]*Message, PageMeta, error)
	// RecentMessages returns the caller's newest messages.
	RecentMessages(ctx context.Context, c *Caller, limit int) ([]*Message, error)
	// FindMessage returns a message by integer id or uuid.
	FindMessage(ctx context.Context, c *Caller, idOrUUID string) (*Message, error)
	// CreateMessage stores a new message on an account the caller may use.
	CreateMessage(ctx context.Context, c *Caller, m *MessageCreate) (*Message, error)
	// AcknowledgeMessage marks the message acknowledged and stops its escalation. Idempotent.
	AcknowledgeMessage(ctx context.Context, c *Caller, idOrUUID string) (*Message, error)
	// SetMessageRead sets the message's read flag. Idempotent.
	SetMessageRead(ctx context.Context, c *Caller, idOrUUID string, read bool) (*Message, error)
}

// jsonDepth is the deepest nesting of objects and arrays in a JSON text (the answers object
// itself is 1).
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
