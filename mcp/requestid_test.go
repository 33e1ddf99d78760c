package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/mcp"
	"github.com/mark3labs/mcp-go/client/transport"
)

// lockedBuffer is a log destination the server's goroutines may write concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines(t *testing.T) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		out = append(out, m)
	}
	return out
}

// brokenLimiter fails every Take, as a shared limiter store that is down would.
type brokenLimiter struct{}

func (brokenLimiter) Take(context.Context, string, int, time.Time) (answerdesk.RateDecision, error) {
	return answerdesk.RateDecision{}, errors.New("limiter store unreachable")
}

// TestInternalErrorLogsRequestID: an MCP tool's internal error is logged with the request
// id the client sent (X-Request-Id), so an operator finds the line a user reports.
func TestInternalErrorLogsRequestID(t *testing.T) {
	app := testapp.New(t)
	var logs lockedBuffer
	cfg := mcp.TestConfig(t, app.Server.URL)
	cfg.Logger = slog.New(answerdesk.NewLogHandler(slog.NewJSONHandler(&logs, nil)))
	cfg.Limiter = brokenLimiter{}
	h := mcp.Handler(mcp.NewPublicServer(cfg), "/mcp/public", cfg)
	t.Cleanup(func() { _ = h.(interface{ Shutdown(context.Context) error }).Shutdown(context.Background()) })
	app.Mount("/mcp/public", h)
	c := connectWith(t, app.Server.URL+"/mcp/public", false,
		transport.WithHTTPHeaders(map[string]string{"X-Request-Id": "support-ticket-42"}))
	mcp.WantToolError(t, mcp.Call(t, c, "get_company_info", nil), "internal error")
	found := false
	for _, l := range logs.lines(t) {
		if l["level"] == "ERROR" {
			found = true
			if l["request_id"] != "support-ticket-42" {
				t.Errorf("error line without the request id: %v", l)
			}
		}
	}
	if !found {
		t.Fatal("no error was logged")
	}
}
