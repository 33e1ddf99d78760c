package rest_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/rest"
)

// TestAccessLogLine checks that the access log line, which the middleware builds as a record
// of its own, is the line slog.Logger.LogAttrs writes for the same attributes, in text and
// JSON, with a path that needs quoting and escaping; and that a level filter drops it.
func TestAccessLogLine(t *testing.T) {
	// The time and the duration differ between the two lines: leave them out.
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "duration" {
			return slog.Attr{}
		}
		return a
	}}
	for _, tc := range []struct {
		name    string
		handler func(io.Writer, *slog.HandlerOptions) slog.Handler
		level   slog.Level
		want    bool
	}{
		{"text", func(w io.Writer, o *slog.HandlerOptions) slog.Handler { return slog.NewTextHandler(w, o) }, slog.LevelInfo, true},
		{"json", func(w io.Writer, o *slog.HandlerOptions) slog.Handler { return slog.NewJSONHandler(w, o) }, slog.LevelInfo, true},
		{"filtered", func(w io.Writer, o *slog.HandlerOptions) slog.Handler { return slog.NewTextHandler(w, o) }, slog.LevelWarn, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got bytes.Buffer
			o := *opts
			o.Level = tc.level
			ts := serve(t, &rest.Server{Logger: slog.New(tc.handler(&got, &o))})
			const path = `/api/v2/n%20o%22pe%5C%E2%9C%93%0A=x`
			req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Request-Id", "req-1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			ts.Close() // the line is written once the handler returns

			var want bytes.Buffer
			slog.New(tc.handler(&want, &o)).LogAttrs(context.Background(), slog.LevelInfo, "request",
				slog.String("method", "GET"), slog.String("path", "/api/v2/n o\"pe\\\u2713\n=x"), slog.Int("status", resp.StatusCode),
				slog.Int("bytes", len(body)), slog.Duration("duration", 0), slog.String("request_id", resp.Header.Get("X-Request-Id")))
			if !tc.want {
				if got.Len() != 0 {
					t.Fatalf("filtered out, yet logged %q", got.String())
				}
				return
			}
			if got.String() != want.String() || !strings.Contains(got.String(), "req-1") {
				t.Fatalf("access log line\n got %q\nwant %q", got.String(), want.String())
			}
		})
	}
}
