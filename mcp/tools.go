package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/schema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// validateOutput makes the servers check every structured result against the tool's
// output schema (mcp-go answers a tool error when it does not conform). The tests turn it
// on; in production the snapshot-tested types are the guarantee and the check is skipped.
var validateOutput = false

// newServer is an MCP server with the options both servers share.
func newServer(name, title string, cfg Config, instructions string, extra ...server.ServerOption) *server.MCPServer {
	logger := cfg.logger()
	opts := []server.ServerOption{
		server.WithTitle(title),
		server.WithWebsiteURL(cfg.base()),
		server.WithInstructions(instructions),
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithToolHandlerMiddleware(logCalls(logger)),
	}
	if validateOutput {
		opts = append(opts, server.WithOutputSchemaValidation())
	}
	return server.NewMCPServer(name, cfg.version(), append(opts, extra...)...)
}

// publicBudget is the server option of the public and docs servers (never the account
// server, whose callers are signed in) that makes their tool calls spend the public API's
// per-client allowance; none when cfg has no Limiter.
func publicBudget(cfg Config) []server.ServerOption {
	if cfg.Limiter == nil {
		return nil
	}
	return []server.ServerOption{server.WithToolHandlerMiddleware(rateLimitCalls(cfg))}
}

// rateLimitCalls spends one request of the caller's public allowance per tool call, and
// refuses the call with a tool error naming the retry time when the client is over it.
func rateLimitCalls(cfg Config) server.ToolHandlerMiddleware {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	logger := cfg.logger()
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if refused := spendPublic(ctx, cfg, now, logger); refused != nil {
				return refused, nil
			}
			return next(ctx, req)
		}
	}
}

// spendPublic spends one request of the caller's public allowance; over it (or when the
// limiter fails) it returns the tool error to answer instead, nil otherwise.
func spendPublic(ctx context.Context, cfg Config, now func() time.Time, logger *slog.Logger) *mcpgo.CallToolResult {
	client := answerdesk.ClientKeyFromContext(ctx)
	if client == "" {
		client = "unknown" // not mounted behind the HTTP layer: one shared budget
	}
	d, err := cfg.Limiter.Take(ctx, answerdesk.RateKey(answerdesk.PublicRateBucket, client), 1, now())
	if err != nil {
		logger.ErrorContext(ctx, "mcp rate limit", "err", err, "request_id", answerdesk.RequestIDFromContext(ctx))
		return mcpgo.NewToolResultError("internal error: the server failed to answer this call. Try again later.")
	}
	if !d.Allowed {
		retry := int((d.Reset + time.Second - 1) / time.Second)
		return mcpgo.NewToolResultError(fmt.Sprintf(
			"rate_limited: over the limit of %d requests per minute for this client (shared with the public API /api/v1). Retry in %d seconds.",
			d.Limit, retry))
	}
	return nil
}

// logCalls logs every tool call at debug level, and the calls that fail inside the server.
func logCalls(logger *slog.Logger) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			start := time.Now()
			res, err := next(ctx, req)
			level := slog.LevelDebug
			if err != nil {
				level = slog.LevelError
			}
			logger.Log(ctx, level, "mcp tool call", "tool", req.Params.Name, "is_error", res != nil && res.IsError,
				"duration", time.Since(start), "err", err)
			return res, err
		}
	}
}

// readOnly sets the annotations of a tool that only reads this server's own content:
// read-only, not destructive, idempotent, closed world. mcp-go's defaults are the
// opposite (destructive and open world), so every tool sets all four.
func readOnly(title string) []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithTitleAnnotation(title),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithDestructiveHintAnnotation(false),
		mcpgo.WithIdempotentHintAnnotation(true),
		mcpgo.WithOpenWorldHintAnnotation(false),
		mcpgo.WithSchemaAdditionalProperties(false),
	}
}

// outputSchema is the output schema of T, from the reflection the OpenAPI documents'
// components come from (internal/schema), with the jsonschema tags as descriptions. Slices
// are never null in results, so their schema is "array" rather than ["null", "array"].
func outputSchema[T any]() mcpgo.ToolOption {
	s, err := schema.For[T]()
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err)) // a programming error, caught by every test
	}
	for _, p := range s.Properties {
		schema.NonNullArrays(p)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err))
	}
	return func(t *mcpgo.Tool) {
		_ = json.Unmarshal(raw, &t.OutputSchema) // marshalled just above
		t.OutputSchema.Type = "object"
		t.OutputSchema.PropertyOrder = nil
	}
}

// readTool is a tool whose handler runs run and answers with its result as structured
// content and as text, what a model reads, made from it; an error from run becomes
// toolError's under the tool's name.
func readTool[T any](cfg Config, tool mcpgo.Tool, run func(context.Context, mcpgo.CallToolRequest) (T, error), text func(T) string) server.ServerTool {
	return server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		out, err := run(ctx, req)
		if err != nil {
			return toolError(ctx, cfg.logger(), tool.Name, err), nil
		}
		return mcpgo.NewToolResultStructured(out, text(out)), nil
	}}
}

// noArgs is the run of a tool that takes no arguments (any is an error) and answers what
// build makes.
func noArgs[T any](build func() T) func(context.Context, mcpgo.CallToolRequest) (T, error) {
	return func(_ context.Context, req mcpgo.CallToolRequest) (T, error) {
		if _, err := readArgs(req); err != nil {
			var zero T
			return zero, err
		}
		return build(), nil
	}
}

func toolDef(name, description string, opts ...mcpgo.ToolOption) mcpgo.Tool {
	all := append([]mcpgo.ToolOption{mcpgo.WithDescription(description)}, opts...)
	return mcpgo.NewTool(name, all...)
}
