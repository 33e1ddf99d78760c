package answerdesk_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// TestLogHandler: a line logged with a request's context names its request id once.
func TestLogHandler(t *testing.T) {
	withID := answerdesk.NewContextWithRequestID(context.Background(), "req-1")
	for _, tc := range []struct {
		name string
		log  func(*slog.Logger)
		want string
	}{
		{"a_line_with_the_context_gets_the_id", func(l *slog.Logger) { l.ErrorContext(withID, "boom") }, "level=ERROR msg=boom request_id=req-1\n"},
		{"an_id_given_by_the_call_is_not_repeated", func(l *slog.Logger) { l.ErrorContext(withID, "boom", "request_id", "req-1") }, "level=ERROR msg=boom request_id=req-1\n"},
		{"attributes_of_the_logger_stay", func(l *slog.Logger) { l.With("worker", "dispatch").InfoContext(withID, "tick") }, "level=INFO msg=tick worker=dispatch request_id=req-1\n"},
		{"a_line_without_a_request_has_none", func(l *slog.Logger) { l.ErrorContext(context.Background(), "boom") }, "level=ERROR msg=boom\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}})
			tc.log(slog.New(answerdesk.NewLogHandler(h)))
			if got := buf.String(); got != tc.want {
				t.Errorf("logged %q, want %q", got, tc.want)
			}
			if strings.Count(buf.String(), "request_id") > 1 {
				t.Errorf("request_id repeated: %s", buf.String())
			}
		})
	}
}
