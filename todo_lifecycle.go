package answerdesk

import (
	"fmt"
	"strings"
)

// To Do lifecycle actions (the To Dos docs page).
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

// ToDoPatch is a parsed partial update of a To Do: the properties it names. null clears
// an optional property (a required one is then reported as missing).
type ToDoPatch struct {
	in ToDoUpdateRequest // account_number and delivery_type not named
}

// ParseToDoPatch reads the body of PATCH /api/v2/to-dos/{id} (a ToDoUpdateRequest). Naming
// account_number or delivery_type, which decide which account and which channel a To Do
// is, is a 422 on that field; unknown properties are ignored, as on create.
func ParseToDoPatch(body []byte) (*ToDoPatch, error) {
	var in ToDoUpdateRequest
	if err := decodeBody(body, &in, errNotObject); err != nil {
		return nil, err
	}
	var v ValidationErrors
	for _, name := range refusedNamed(&in) {
		v.Add(name, "cannot be changed; cancel this To Do and create a new one")
	}
	if s := in.Schedule; s.Named && !s.Has() {
		v.Add("schedule", "cannot be removed; give a new schedule or leave it out")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return &ToDoPatch{in: in}, nil
}

// HasSchedule reports whether the update replaces the schedule.
func (p *ToDoPatch) HasSchedule() bool { return p.in.Schedule.Named }

// Merge applies the update to t and validates the result exactly as a create. The
// schedule is parsed only when the update gives one (its plan is made by the store, which
// knows the time zone and the time); otherwise the result's Schedule is the zero value.
func (p *ToDoPatch) Merge(t *ToDo) (*ToDoCreate, error) {
	in := ToDoCreateRequest{AccountNumber: given(&t.AccountNumber), DeliveryType: given(&t.DeliveryType),
		ToDoDetails: ToDoDetails{Name: given(&t.Name), Contact: given(t.Contact), MessageText: given(t.MessageText),
			Instructions: given(t.Instructions), From: given(t.From), FromEmail: given(t.FromEmail),
			SenderName: given(t.SenderName), Subject: given(t.Subject)}}
	overlay(&in.ToDoDetails, &p.in.ToDoDetails)
	if p.in.Schedule.Named {
		in.Schedule = p.in.Schedule
	}
	c, err := toDoFields(&in, false)
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
