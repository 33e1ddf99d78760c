package dispatch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
)

// strp returns a pointer to s: the optional To Do fields are pointers.
func strp(s string) *string { return &s }

// channelToDo returns a To Do of the given delivery type with every field that type uses
// set, as the store hands it to the scheduler (contact in E.164, from with +1 stripped).
func channelToDo(kind string) *answerdesk.ToDo {
	t := &answerdesk.ToDo{
		ID:            42,
		AccountNumber: "1001",
		Name:          "Morning reminder",
		DeliveryType:  kind,
		PhoneNumber:   "+15555550100",
	}
	switch kind {
	case answerdesk.DeliveryEmail:
		t.Contact = strp("alice@example.com")
		t.FromEmail = strp("desk@acme.example")
		t.SenderName = strp(`Acme "Front" Désk`)
		t.Subject = strp("Your reminder ✓")
		t.MessageText = strp("Hello Alice,\nthis is your reminder.\n")
	case answerdesk.DeliverySMS:
		t.Contact = strp("+15555550123")
		t.From = strp("5555550199")
		t.MessageText = strp("Reminder: call the office back")
	case answerdesk.DeliveryCall, answerdesk.DeliveryAIOutboundCall:
		t.Contact = strp("+15555550123")
		t.Instructions = strp(`Say "hi" & <bye>`)
	}
	return t
}

// occurrence wraps a To Do as the scheduler claims it.
func occurrence(t *answerdesk.ToDo, key string) *answerdesk.Occurrence {
	return &answerdesk.Occurrence{ID: 7, ToDo: t, ScheduledAt: time.Date(2026, 3, 1, 14, 30, 0, 0, time.UTC), Key: key}
}

func TestOutboxChannelLogs(t *testing.T) {
	var buf bytes.Buffer
	ch := dispatch.NewOutboxChannel(slog.New(slog.NewJSONHandler(&buf, nil)))
	if ch.Name() != "outbox" {
		t.Errorf("Name() = %q", ch.Name())
	}
	todo := channelToDo(answerdesk.DeliveryEmail)
	todo.MessageText = strp(strings.Repeat("é", 500))
	var _ dispatch.Channel = ch

	id, err := ch.Send(context.Background(), occurrence(todo, "42-20260301T1430Z"))
	if err != nil {
		t.Fatal(err)
	}
	if id != "outbox-42-20260301T1430Z" {
		t.Errorf("provider id = %q", id)
	}
	line := buf.String()
	if strings.Count(line, "\n") != 1 {
		t.Fatalf("want one log line, got %q", line)
	}
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"msg": "outbox delivery", "key": "42-20260301T1430Z", "contact": "alice@example.com",
		"todo_id": float64(42), "delivery_type": "email", "from_email": "desk@acme.example",
		"subject": "Your reminder ✓",
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s = %v, want %v", k, rec[k], v)
		}
	}
	text, _ := rec["message_text"].(string)
	if n := utf8.RuneCountInString(text); n != 201 || !strings.HasSuffix(text, "…") {
		t.Errorf("message_text not cut to 200 runes + …: %d runes", n)
	}
}

func TestOutboxChannelCall(t *testing.T) {
	var buf bytes.Buffer
	ch := dispatch.NewOutboxChannel(slog.New(slog.NewTextHandler(&buf, nil)))
	if _, err := ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryCall), "k1")); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"+15555550123", "key=k1", "delivery_type=call", `instructions="Say \"hi\" & <bye>"`} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("log line %q lacks %q", buf.String(), s)
		}
	}
}

func TestPermanent(t *testing.T) {
	if dispatch.Permanent(nil) != nil {
		t.Error("Permanent(nil) != nil")
	}
	base := context.DeadlineExceeded
	err := dispatch.Permanent(base)
	if !dispatch.IsPermanent(err) || dispatch.IsPermanent(base) {
		t.Error("IsPermanent does not tell the wrapped error apart")
	}
	wrapped := fmt.Errorf("send: %w", err)
	if !dispatch.IsPermanent(wrapped) {
		t.Error("IsPermanent does not look through wrapping")
	}
	if err.Error() != base.Error() {
		t.Errorf("Error() = %q", err.Error())
	}
}
