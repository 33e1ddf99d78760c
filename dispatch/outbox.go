package dispatch

import (
	"context"
	"log/slog"

	"github.com/answerdesk/answerdesk"
)

// outboxPreview caps the text fields in the outbox log line: the line shows what would have
// been sent without copying whole email bodies into the log.
const outboxPreview = 200

// OutboxChannel is the embedded default when no provider is configured: it sends nothing
// and logs what it would have sent. The scheduler records the attempt in the database, as
// for every channel, so the To Do shows the delivery with channel "outbox".
type OutboxChannel struct {
	logger *slog.Logger
}

// NewOutboxChannel returns the outbox channel logging to logger (slog.Default() when nil).
func NewOutboxChannel(logger *slog.Logger) *OutboxChannel {
	if logger == nil {
		logger = slog.Default()
	}
	return &OutboxChannel{logger: logger}
}

// Name returns "outbox".
func (c *OutboxChannel) Name() string { return ChannelOutbox }

// Send logs the occurrence and returns "outbox-" + its key. It does not fail.
func (c *OutboxChannel) Send(ctx context.Context, o *answerdesk.Occurrence) (string, error) {
	attrs := []slog.Attr{slog.String("key", o.Key)}
	if t := o.ToDo; t != nil {
		attrs = append(attrs,
			slog.Int64("todo_id", t.ID),
			slog.String("delivery_type", t.DeliveryType),
			slog.String("contact", todoField(t.Contact)),
			slog.String("from", todoField(t.From)),
			slog.String("from_email", todoField(t.FromEmail)),
			slog.String("subject", todoField(t.Subject)),
			slog.String("message_text", outboxTruncate(todoField(t.MessageText), outboxPreview)),
			slog.String("instructions", outboxTruncate(todoField(t.Instructions), outboxPreview)),
		)
	}
	c.logger.LogAttrs(ctx, slog.LevelInfo, "outbox delivery", attrs...)
	return "outbox-" + o.Key, nil
}

// outboxTruncate shortens s to at most n runes, marking the cut with "…".
func outboxTruncate(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}
