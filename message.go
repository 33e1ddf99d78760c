package answerdesk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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

// Message is a message taken by the service (SERVICE.md §2.1). Optional values are
// pointers so that absent values encode as null.
type Message struct {
	ID                   int64   `json:"id"`
	UUID                 string  `json:"uuid"`
	AccountID            int64   `json:"account_id"`
	AgentID              *int64  `json:"agent_id"`
	UserID               *int64  `json:"user_id"`
	PickupUserID         *int64  `json:"pickup_user_id"`
	ContactID            *int64  `json:"contact_id"`
	DeliveredBy          *int64  `json:"delivered_by"`
	DeliveredTo          *int64  `json:"delivered_to"`
	SaleID               *int64  `json:"sale_id"`
	DidID                *int64  `json:"did_id"`
	EscalationLevelID    *int64  `json:"escalation_level_id"`
	ActivitiesCount      int64   `json:"activities_count"`
	ClosingActionGroupID *int64  `json:"closing_action_group_id"`
	EscalationCounter    int64   `json:"escalation_counter"`
	CallID               *int64  `json:"call_id"`
	ChatSessionID        *int64  `json:"chat_session_id"`
	ToDoTaskID           *int64  `json:"to_do_task_id"`
	PhoneNumber          *string `json:"phone_number"`
	Extension            *string `json:"extension"`
	CallerID             *string `json:"caller_id"`
	FirstName            *string `json:"first_name"`
	LastName             *string `json:"last_name"`
	CompanyName          *string `json:"company_name"`
	Content              string  `json:"content"`
	Status               string  `json:"status"`
	IVR                  *string `json:"ivr"`
	Phone                *string `json:"phone"`
	Email                *string `json:"email"`
	CallRefID            *string `json:"call_ref_id"`
	Note                 *string `json:"note"`
	Address              *string `json:"address"`
	Address2             *string `json:"address2"`
	City                 *string `json:"city"`
	State                *string `json:"state"`
	Zip                  *string `json:"zip"`
	HowYouHearAboutUs    *string `json:"how_you_hear_about_us"`
	AltPhone             *string `json:"alt_phone"`
	ReceiverName         *string `json:"receiver_name"`
	NonMessageType       *string `json:"non_message_type"`
	EmailSubject         *string `json:"email_subject"`
	Origin               string  `json:"origin"`
	Disposition          *string `json:"disposition"`
	KlassNames           *string `json:"klass_names"`
	Read                 bool    `json:"read"`
	IsEmergency          bool    `json:"is_emergency"`
	PositiveDataDip      bool    `json:"positive_data_dip"`
	FromToDo             bool    `json:"from_to_do"`
	CreatedAt            Time    `json:"created_at"`
	UpdatedAt            Time    `json:"updated_at"`
	PickupDate           *Time   `json:"pickup_date"`
	DeliveredAt          *Time   `json:"delivered_at"`
	NextEscalationAt     *Time   `json:"next_escalation_at"`
	MessageReceivedDate  *Time   `json:"message_received_date"`
	SendAt               *Time   `json:"send_at"`
	AcknowledgedAt       *Time   `json:"acknowledged_at"`
	// Answers is the JSON object of script answers, kept as stored: decoding it for every
	// row of a list only to encode it again was 5% of a list request.
	Answers json.RawMessage `json:"answers"`
}

// MessageFilter is a request for one page of messages. Dates are the MM-DD-YYYY strings
// the caller gave; Validate parses them.
type MessageFilter struct {
	Origin    string
	Status    string
	StartDate string
	EndDate   string
	Read      *bool
	Page      *int
	PageSize  *int
}

// Message list limits.
const (
	DefaultMessagePageSize = 50
	MaxMessagePageSize     = 200
	DefaultRecentLimit     = 20
	MaxRecentLimit         = 100
)

// MessageQuery is a validated MessageFilter, ready for a store.
type MessageQuery struct {
	Origin string // upper case, or empty
	Status string // or empty
	Since  int64  // unix milliseconds, inclusive; 0 when unbounded
	Until  int64  // unix milliseconds, exclusive; 0 when unbounded
	Read   *bool
	Paging
}

// Validate checks every filter value and returns the query it describes.
func (f MessageFilter) Validate() (MessageQuery, error) {
	var v ValidationErrors
	q := MessageQuery{Status: f.Status, Read: f.Read}
	if f.Origin != "" {
		q.Origin = strings.ToUpper(f.Origin)
		if !slices.Contains(Origins, q.Origin) {
			v.Add("origin", "must be one of "+strings.Join(Origins, ", ")+" (any case)")
		}
	}
	if f.Status != "" && !slices.Contains(Statuses, f.Status) {
		v.Add("status", "must be one of "+strings.Join(Statuses, ", "))
	}
	since, until := DateRange(&v, "start_date", f.StartDate, "end_date", f.EndDate)
	if !since.IsZero() {
		q.Since = since.UnixMilli()
	}
	if !until.IsZero() {
		q.Until = until.UnixMilli()
	}
	q.Paging = CheckPaging(&v, f.Page, f.PageSize, DefaultMessagePageSize, MaxMessagePageSize)
	return q, v.Err()
}

// CheckRecentLimit validates the limit of the recent-messages list (nil means default).
func CheckRecentLimit(limit *int) (int, error) {
	if limit == nil {
		return DefaultRecentLimit, nil
	}
	if *limit < 1 || *limit > MaxRecentLimit {
		var v ValidationErrors
		v.Add("limit", fmt.Sprintf("must be an integer between 1 and %d", MaxRecentLimit))
		return 0, v.Err()
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

// messageStringFields are the optional string properties a client may set on create.
var messageStringFields = []string{
	"phone_number", "extension", "caller_id", "first_name", "last_name", "company_name",
	"ivr", "phone", "email", "call_ref_id", "note", "address", "address2", "city", "state", "zip",
	"how_you_hear_about_us", "alt_phone", "receiver_name", "non_message_type", "email_subject",
	"disposition",
}

// MessageStringFields returns the optional string properties accepted on create.
func MessageStringFields() []string { return slices.Clone(messageStringFields) }

// Size limits on message input, generous for real messages and small enough to bound storage.
const (
	MaxContentLength = 20000
	MaxStringLength  = 1000
	MaxAnswers       = 100
	MaxAnswersBytes  = 32 << 10
)

// ParseMessageCreate reads the "message" object of a create request. The object accepts any
// properties: known ones are type-checked, unknown ones ignored. Every bad field is reported.
func ParseMessageCreate(obj json.RawMessage) (*MessageCreate, error) {
	var v ValidationErrors
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		v.Add("message", "must be a JSON object")
		return nil, v.Err()
	}
	m := &MessageCreate{Strings: map[string]string{}}
	str := func(name string, max int) (string, bool) {
		b, ok := raw[name]
		if !ok || string(b) == "null" {
			return "", false
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			v.Add(name, "must be a string")
			return "", false
		}
		if utf8.RuneCountInString(s) > max {
			v.Add(name, fmt.Sprintf("must be at most %d characters", max))
			return "", false
		}
		return s, true
	}

	if s, ok := str("content", MaxContentLength); ok {
		m.Content = s
	}
	if strings.TrimSpace(m.Content) == "" && !v.Has("content") {
		v.Add("content", "is required and must be a non-empty string")
	}
	if s, ok := str("account_number", 64); ok {
		m.AccountNumber = strings.TrimSpace(s)
	}
	if s, ok := str("origin", 32); ok {
		m.Origin = strings.ToUpper(strings.TrimSpace(s))
		if !slices.Contains(Origins, m.Origin) {
			v.Add("origin", "must be one of "+strings.Join(Origins, ", "))
		}
	}
	if b, ok := raw["from_ai_assistant"]; ok && string(b) != "null" {
		var fromAI bool
		if err := json.Unmarshal(b, &fromAI); err != nil {
			v.Add("from_ai_assistant", "must be a boolean")
		} else if fromAI && m.Origin == "" {
			m.Origin = OriginAICall
		}
	}
	if m.Origin == "" {
		m.Origin = OriginAPI
	}
	if b, ok := raw["is_emergency"]; ok && string(b) != "null" {
		if err := json.Unmarshal(b, &m.IsEmergency); err != nil {
			v.Add("is_emergency", "must be a boolean")
		}
	}
	if b, ok := raw["escalation_level_id"]; ok && string(b) != "null" {
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			v.Add("escalation_level_id", "must be an integer")
		} else if id, err := n.Int64(); err != nil || id < 1 {
			v.Add("escalation_level_id", "must be a positive integer")
		} else {
			m.EscalationLevelID = &id
		}
	}
	if b, ok := raw["answers"]; ok && string(b) != "null" {
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
		default:
			m.Answers = answers
		}
	}
	for _, name := range messageStringFields {
		if s, ok := str(name, MaxStringLength); ok {
			m.Strings[name] = s
		}
	}
	if s, ok := m.Strings["non_message_type"]; ok && !slices.Contains(NonMessageTypes, s) {
		v.Add("non_message_type", "must be one of "+strings.Join(NonMessageTypes, ", ")+" or null")
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
