package mcp

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/answerdesk/answerdesk"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// invalidArg is the error of a bad argument: the message names the argument and says how
// to fix the call.
func invalidArg(name, problem, fix string) error {
	return &answerdesk.Error{Code: answerdesk.EINVALID, Message: "invalid argument " + name + ": " + problem, Hint: fix,
		Fields: []answerdesk.FieldError{{Field: name, Message: problem}}}
}

// toolError maps an error to a tool error (isError): the one place where service and
// argument errors become what a model reads. Anything that is not an *answerdesk.Error is
// logged and shown as "internal error".
func toolError(ctx context.Context, logger *slog.Logger, tool string, err error) *mcpgo.CallToolResult {
	var e *answerdesk.Error
	if !errors.As(err, &e) {
		logger.ErrorContext(ctx, "mcp tool failed", "tool", tool, "err", err, "request_id", answerdesk.RequestIDFromContext(ctx))
		return mcpgo.NewToolResultError("internal error: the server failed to answer this call. Try again later.")
	}
	msg := e.Message
	// Every field error is named, as REST's errors[] does: "3 invalid parameters: contact:
	// is required when delivery_type is sms; ...". A message that already says it is kept.
	var fields []string
	for _, f := range e.Fields {
		if fe := f.Field + ": " + f.Message; !strings.Contains(msg, fe) {
			fields = append(fields, fe)
		}
	}
	if len(fields) > 0 {
		msg += ": " + strings.Join(fields, "; ")
	}
	if e.Hint != "" {
		msg += ". " + e.Hint
	}
	if e.Code == answerdesk.ENOTFOUND && e.Hint == "" {
		msg += "."
	}
	return mcpgo.NewToolResultError(msg)
}

// notFound is the error of a page that does not exist.
func notFound(what, hint string) error {
	return &answerdesk.Error{Code: answerdesk.ENOTFOUND, Message: what, Hint: hint}
}
