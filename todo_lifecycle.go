package answerdesk

import (
	"encoding/json"
	"fmt"
	"strings"
)

// To Do lifecycle actions (CONTRACT §1.7).
const (
	ToDoPause  = "pause"
	ToDoResume = "resume"
	ToDoCancel = "cancel"
)

// ToDoTransition is the lifecycle rule: the state a To Do in state from moves to on action.
// changed is false when the action leaves it as it is (every action is idempotent). Pause
// and resume of a cancelled or completed To Do are refused with a field error on "state";
// cancel is accepted in every state, so DELETE can always be repeated. Resume answers
// active here; the store completes the To Do when its schedule has nothing left after now.
func ToDoTransition(from, action string) (to string, changed bool, err error) {
	refuse := func() error {
		return &Error{Code: EINVALID, Message: fmt.Sprintf("cannot %s a %s to-do", action, from),
			Hint:   "Only an active or paused To Do can be paused or resumed; create a new To Do instead.",
			Fields: []FieldError{{Field: "state", Message: fmt.Sprintf("is %s: a %s To Do cannot be %sd", from, from, action)}}}
	}
	switch action {
	case ToDoPause:
		switch from {
		case ToDoActive:
			return ToDoPaused, true, nil
		case ToDoPaused:
			return ToDoPaused, false, nil
		}
		return from, false, refuse()
	case ToDoResume:
		switch from {
		case ToDoPaused:
			return ToDoActive, true, nil
		case ToDoActive:
			return ToDoActive, false, nil
		}
		return from, false, refuse()
	case ToDoCancel:
		return ToDoCancelled, from != ToDoCancelled, nil
	}
	return from, false, fmt.Errorf("unknown to-do action %q", action)
}

// toDoFixedFields are the create fields an update may not name: they decide which account
// and which channel a To Do is, so changing them is a new To Do.
var toDoFixedFields = []string{"account_number", "delivery_type"}

// toDoUpdatable are the create fields an update may change.
var toDoUpdatable = []string{"name", "contact", "message_text", "instructions", "from", "from_email", "sender_name", "subject", "schedule"}

// ToDoPatch is a parsed partial update of a To Do: the members it names, as JSON. null
// clears an optional field (a required one is then reported as missing).
type ToDoPatch struct {
	raw map[string]json.RawMessage
}

// ParseToDoPatch reads the body of PATCH /api/v2/to-dos/{id}. Naming account_number or
// delivery_type is a 422 on that field; unknown properties are ignored, as on create.
func ParseToDoPatch(body []byte) (*ToDoPatch, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, &Error{Code: EPROCESSING, Message: "the request body must be a JSON object"}
	}
	var v ValidationErrors
	for _, f := range toDoFixedFields {
		if _, ok := raw[f]; ok {
			v.Add(f, "cannot be changed; cancel this To Do and create a new one")
		}
	}
	if b, ok := raw["schedule"]; ok && string(b) == "null" {
		v.Add("schedule", "cannot be removed; give a new schedule or leave it out")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	p := &ToDoPatch{raw: map[string]json.RawMessage{}}
	for _, f := range toDoUpdatable {
		if b, ok := raw[f]; ok {
			p.raw[f] = b
		}
	}
	return p, nil
}

// HasSchedule reports whether the update replaces the schedule.
func (p *ToDoPatch) HasSchedule() bool { _, ok := p.raw["schedule"]; return ok }

// Merge applies the update to t and validates the result exactly as a create. The
// schedule is parsed only when the update gives one (its plan is made by the store, which
// knows the time zone and the time); otherwise the result's Schedule is the zero value.
func (p *ToDoPatch) Merge(t *ToDo) (*ToDoCreate, error) {
	merged := map[string]json.RawMessage{}
	put := func(k string, v *string) {
		if v != nil {
			b, _ := json.Marshal(*v) // a string always encodes
			merged[k] = b
		}
	}
	put("account_number", &t.AccountNumber)
	put("delivery_type", &t.DeliveryType)
	put("name", &t.Name)
	put("contact", t.Contact)
	put("message_text", t.MessageText)
	put("instructions", t.Instructions)
	put("from", t.From)
	put("from_email", t.FromEmail)
	put("sender_name", t.SenderName)
	put("subject", t.Subject)
	for k, b := range p.raw {
		merged[k] = b
	}
	c, err := parseToDoFields(merged, false)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.Name) == "" {
		c.Name = t.CreatedAt.String() // as on create: the creation timestamp
	}
	return c, nil
}

// ToDoDelivery is one occurrence of a To Do and its delivery attempts
// (GET /api/v2/to-dos/{id}/deliveries).
type ToDoDelivery struct {
	ID           int64 `json:"id" jsonschema:"Id of the occurrence."`
	ScheduledFor Time  `json:"scheduled_for" jsonschema:"When the occurrence was scheduled (UTC)."`
	// Status is pending (waiting, or waiting for a retry), sending, sent, failed or skipped
	// (missed while the service was down, or dropped by a pause, cancel or schedule change).
	Status string `json:"status" jsonschema:"pending (waiting, or waiting for a retry), sending (claimed by the scheduler), sent, failed, skipped (missed while the service was down, or dropped by a pause, cancel or schedule change)."`
	// Channel is the channel of the latest attempt; null before the first.
	Channel  *string       `json:"channel" jsonschema:"Channel of the latest attempt; null before the first."`
	Error    *string       `json:"error" jsonschema:"Why it failed or was skipped; null otherwise."`
	Attempts []ToDoAttempt `json:"attempts" jsonschema:"Every delivery attempt, oldest first."`
}

// Occurrence statuses shown by ToDoDelivery.
const (
	OccurrencePending = "pending"
	OccurrenceSending = "sending"
	OccurrenceSent    = "sent"
	OccurrenceFailed  = "failed"
	OccurrenceSkipped = "skipped"
)

// OccurrenceStatuses lists every ToDoDelivery status.
var OccurrenceStatuses = []string{OccurrencePending, OccurrenceSending, OccurrenceSent, OccurrenceFailed, OccurrenceSkipped}

// ToDoAttempt is one delivery attempt of an occurrence. A failed attempt that was retried
// shows as failed, as in last_delivery.
type ToDoAttempt struct {
	At     Time    `json:"at" jsonschema:"When the attempt ended."`
	Status string  `json:"status" jsonschema:"sent, failed (a failed attempt that was retried is failed too) or skipped."`
	Error  *string `json:"error" jsonschema:"The provider's error; null when sent."`
}

// To Do delivery list limits.
const (
	DefaultToDoDeliveryPageSize = 20
	MaxToDoDeliveryPageSize     = 100
)
