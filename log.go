package answerdesk

import (
	"context"
	"log/slog"
)

type requestIDKey struct{}

// NewContextWithRequestID returns ctx carrying the id of the request (or the background
// job) it serves, so that every line logged with it can name the id its client saw.
func NewContextWithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFromContext is the request id ctx carries, or "".
func RequestIDFromContext(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// NewLogHandler wraps h so that a record logged with a context that carries a request id
// (slog's ...Context methods) gets a request_id attribute, unless it has one already. The
// REST handlers, the MCP tools, the OAuth pages and the batch jobs then all log it without
// each call site remembering to.
func NewLogHandler(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestIDFromContext(ctx); id != "" {
		has := false
		r.Attrs(func(a slog.Attr) bool {
			has = a.Key == "request_id"
			return !has
		})
		if !has {
			r = r.Clone()
			r.AddAttrs(slog.String("request_id", id))
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
