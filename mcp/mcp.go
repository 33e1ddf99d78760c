// Package mcp serves answerdesk's MCP servers over Streamable HTTP (mark3labs/mcp-go): the
// public server (/mcp/public: company, services, pricing, site search, pages) and the
// documentation server (/mcp/docs: passage search, pages, questions answered from the docs).
//
// Tool handlers call the same services as rest/ (content.Site, search.Index), never HTTP to
// ourselves. Each tool has one constructor returning its definition and handler; the
// definitions are snapshotted in testdata/ so that a change to what models see is a
// reviewed diff (go test ./mcp -run TestToolSnapshots with UPDATE_SNAPSHOTS=1 rewrites them).
//
// Mounting (chi): r.Handle("/mcp/public", mcp.Handler(mcp.NewPublicServer(cfg), "/mcp/public", cfg)).
package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/internal/schema"
	"github.com/answerdesk/answerdesk/search"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Config holds what the MCP servers serve and how.
type Config struct {
	Site  *content.Site
	Index *search.Index // nil: search_site, searchDocumentation and askQuestion answer a tool error
	// BaseURL is the service's public URL without a trailing slash (--base-url): absolute
	// URLs in results, resource URIs, and the Host and Origin the endpoint accepts.
	BaseURL string
	Logger  *slog.Logger
	// Version is reported to clients in serverInfo; "dev" when empty.
	Version string
	// AllowedHosts are Host names accepted besides the base URL's host and loopback, for
	// example the name a reverse proxy forwards under. Optional.
	AllowedHosts []string

	// LLMURL, when set, makes askQuestion compose its answer with an OpenAI-compatible chat
	// endpoint (LLMURL + "/chat/completions", or LLMURL itself when it already ends so) from
	// the same retrieved passages; otherwise askQuestion is extractive.
	LLMURL, LLMModel, LLMKey string
	HTTPClient               *http.Client // for the LLM endpoint; nil: a client with a 60 s timeout

	// SessionKey signs the session IDs, binding each to the caller it was created for (a
	// replica with the same key accepts it; nil: a random key of this process).
	SessionKey []byte

	// Limiter, when set, makes every tool call of the public and docs servers (not the
	// account server's) spend one
	// request of the client's public API allowance (answerdesk.PublicRateBucket, keyed by
	// the answerdesk.ClientKey the HTTP layer put in the request's context): the same
	// limiter instance and key as /api/v1, so the MCP tools are no way around its limit.
	// Over the limit a call answers a tool error naming the seconds to wait.
	Limiter answerdesk.RateLimiter
	// Now is the clock of the rate limit; nil: time.Now.
	Now func() time.Time

	// Authenticate, when set, wraps the MCP handler after the Host and Origin guard: the
	// account server's bearer check, which puts the *answerdesk.Caller in the request's
	// context for the tools. A foreign Origin is refused before credentials are looked at.
	Authenticate func(http.Handler) http.Handler
}

func (c Config) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.Default()
	}
	return c.Logger
}

func (c Config) version() string {
	if c.Version == "" {
		return "dev"
	}
	return c.Version
}

// base is the base URL without a trailing slash; http://localhost when none is configured.
func (c Config) base() string {
	b := strings.TrimRight(c.BaseURL, "/")
	if b == "" {
		return "http://localhost"
	}
	return b
}

// Limits of the endpoint.
const (
	maxBodyBytes   = 1 << 20          // a JSON-RPC request body
	maxDrainBytes  = 8 << 20          // a declared body over the limit that is read before the 413
	sessionIdleTTL = 30 * time.Minute // per-session state is dropped after this long idle
	maxQuestionLen = 1000             // askQuestion
	maxLocatorLen  = 2048             // characters of read_page url, getPage path or url
)

// Handler serves an MCP server over Streamable HTTP at path (for example /mcp/public):
// POST carries JSON-RPC, DELETE ends a session, GET (server-to-client streams) answers 405
// because these servers send nothing unasked. Sessions are stateless-friendly (any replica
// accepts any session ID) and their per-session state expires after 30 minutes idle.
//
// Every request's Host must be the base URL's host, loopback, or one of cfg.AllowedHosts,
// and an Origin header, when present, must be the base URL's origin or a loopback origin;
// anything else is answered 403 (DNS-rebinding protection). Allowed origins get CORS
// headers, so browser-based clients work. mcp-go's own localhost guard is replaced by this
// one, which also accepts the base URL's host on a loopback listener (a reverse proxy on
// the same machine). Request bodies are limited to 1 MiB.
//
// The returned handler also has Shutdown(ctx) error, which stops the idle-session sweeper.
func Handler(s *server.MCPServer, path string, cfg Config) http.Handler {
	logger := cfg.logger()
	h := &endpoint{path: strings.TrimRight(path, "/"), guard: newGuard(cfg)}
	sessions := newSessionIDs(cfg.SessionKey)
	if c, ok := fastCaches.Load(s); ok && cfg.Authenticate == nil {
		now := cfg.Now
		if now == nil {
			now = time.Now
		}
		h.fast = &fastCalls{cache: c.(*resultCache), sessions: sessions, cfg: cfg, now: now, logger: logger}
	}
	h.streamable = server.NewStreamableHTTPServer(s,
		server.WithEndpointPath(path),
		server.WithDisableLocalhostProtection(true), // the guard below checks Host and Origin
		server.WithDisableStreaming(true),
		server.WithSessionIdleTTL(sessionIdleTTL),
		server.WithSessionIdManagerResolver(sessions),
		// Browser clients (an inspector on a loopback origin): CORS for every origin the
		// guard lets through; the guard has already answered 403 to the others.
		server.WithStreamableHTTPCORS(server.WithCORSAllowedOrigins("*")),
		server.WithStreamableHTTPLogger(logger),
	)
	h.next = refuseNull(refuseLarge(h.streamable))
	if cfg.Authenticate != nil {
		h.next = cfg.Authenticate(h.next)
	}
	return h
}

// refuseLarge answers a request whose Content-Length is over the body limit with 413 and a
// JSON-RPC invalid request (after authentication on the account server, like every other
// answer). Without it the SDK reads up to the limit and answers 400 "read request body
// error", which does not say that the size is the problem. A body sent without a length
// still stops at the limit (ServeHTTP's MaxBytesReader), as that 400. A body of up to
// maxDrainBytes is read and dropped first: answering and closing while the client still
// writes makes its write fail with a connection reset, and it never sees the 413.
func refuseLarge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > maxBodyBytes {
			if r.ContentLength <= maxDrainBytes {
				_, _ = io.Copy(io.Discard, r.Body) // at most Content-Length bytes: net/http stops there
			} else {
				w.Header().Set("Connection", "close") // the rest of the body is not read
			}
			refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than the limit of %d bytes", maxBodyBytes))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseNull answers a POST whose body is the JSON null with a JSON-RPC invalid request
// (400): the SDK takes null for a message that is not an initialize and answers 404
// "Invalid session ID", which tells a client its session expired, not that it sent nothing.
func refuseNull(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			// Only a short body can be null (with some white space): peek at most 64 bytes
			// rather than copy every message.
			head := make([]byte, 64)
			n, err := io.ReadFull(r.Body, head)
			head = head[:n]
			ended := err == io.EOF || err == io.ErrUnexpectedEOF
			if ended && string(bytes.TrimSpace(head)) == "null" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request body must be a JSON-RPC message (an object), not null"}}`))
				return
			}
			// The SDK reads the body as it was, a read error (over the size limit) included.
			var rest io.Reader = bytes.NewReader(head)
			switch {
			case ended:
			case err != nil:
				rest = io.MultiReader(rest, errReader{err})
			default:
				rest = io.MultiReader(rest, r.Body)
			}
			r.Body = struct {
				io.Reader
				io.Closer
			}{rest, r.Body}
		}
		next.ServeHTTP(w, r)
	})
}

type endpoint struct {
	path       string
	guard      guard
	streamable *server.StreamableHTTPServer
	next       http.Handler // streamable, behind Config.Authenticate when set
	fast       *fastCalls   // cached public tool calls; nil on the other servers
}

func (h *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.path != "" && strings.TrimRight(r.URL.Path, "/") != h.path {
		http.NotFound(w, r)
		return
	}
	if !h.guard.hostAllowed(r.Host) {
		forbid(w, fmt.Sprintf("Forbidden: Host %q is not this server's", r.Host))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.guard.originAllowed(origin) {
		forbid(w, fmt.Sprintf("Forbidden: Origin %q may not use this server", origin))
		return
	}
	// A body declaring a length over the limit goes unwrapped to refuseLarge, which drains
	// it and answers 413; nothing else reads it, the fast path included.
	tooLarge := r.ContentLength > maxBodyBytes
	if r.Body != nil && !tooLarge {
		r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	}
	if h.fast != nil && !tooLarge && h.fast.serve(w, r) {
		return
	}
	h.next.ServeHTTP(w, r)
}

// sessionIDs makes session IDs that carry an HMAC of the caller's user id (0 on the servers
// without accounts), and accepts a session ID only from the caller it was made for: the MCP
// security guidance binds sessions to users, so that a leaked session ID is no use to
// anyone else. The tools take the caller from each request's bearer anyway; this also
// keeps another user from touching the session's state. Nothing is stored, so any replica
// with the same key accepts any session.
type sessionIDs struct{ key []byte }

func newSessionIDs(key []byte) sessionIDs {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return sessionIDs{key: key}
}

// ResolveSessionIdManager binds the manager to the request's caller.
func (s sessionIDs) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	var owner int64
	if r != nil {
		if c := answerdesk.CallerFromContext(r.Context()); c != nil {
			owner = c.UserID
		}
	}
	return boundSessions{key: s.key, owner: owner}
}

type boundSessions struct {
	key   []byte
	owner int64
}

func (b boundSessions) mac(nonce string) string {
	h := hmac.New(sha256.New, b.key)
	fmt.Fprintf(h, "mcp-session:%d:%s", b.owner, nonce)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

// Generate returns a new session ID for the caller.
func (b boundSessions) Generate() string {
	n := make([]byte, 18)
	_, _ = rand.Read(n)
	nonce := base64.RawURLEncoding.EncodeToString(n)
	return "mcp-session-" + nonce + "." + b.mac(nonce)
}

// Validate accepts a session ID made for this caller; mcp-go answers 404 otherwise, and the
// client starts a new session.
func (b boundSessions) Validate(id string) (bool, error) {
	nonce, mac, ok := strings.Cut(strings.TrimPrefix(id, "mcp-session-"), ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(b.mac(nonce))) {
		return false, errors.New("the session belongs to another caller or does not exist")
	}
	return false, nil
}

// Terminate has nothing to do: no session state is kept beyond mcp-go's idle sweeper.
func (b boundSessions) Terminate(string) (bool, error) { return false, nil }

// Shutdown stops the idle-session sweeper and ends the open sessions.
func (h *endpoint) Shutdown(ctx context.Context) error { return h.streamable.Shutdown(ctx) }

// forbid answers 403 with a JSON-RPC error without id, as the MCP transport allows.
func forbid(w http.ResponseWriter, msg string) { refuse(w, http.StatusForbidden, msg) }

// refuse answers status with a JSON-RPC invalid request without id.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":%d,"message":%q}}`+"\n", mcpgo.INVALID_REQUEST, msg)
}

// guard checks Host and Origin against DNS rebinding.
type guard struct {
	scheme, host, port string          // of the base URL; host lower-cased, port explicit
	extra              map[string]bool // AllowedHosts, lower-cased host names
}

func newGuard(cfg Config) guard {
	g := guard{extra: map[string]bool{}}
	if u, err := url.Parse(strings.TrimSpace(cfg.BaseURL)); err == nil && u.Host != "" {
		g.scheme = strings.ToLower(u.Scheme)
		g.host = hostName(u.Host)
		g.port = portOf(g.scheme, u.Port())
	}
	for _, h := range cfg.AllowedHosts {
		if n := hostName(h); n != "" {
			g.extra[n] = true
		}
	}
	return g
}

// hostAllowed accepts the base URL's host (any port), loopback names and addresses, and the
// extra allowed hosts.
func (g guard) hostAllowed(hostport string) bool {
	h := hostName(hostport)
	if h == "" {
		return false
	}
	return h == g.host || g.extra[h] || isLoopback(h)
}

// originAllowed accepts the base URL's origin (scheme, host and port) and loopback origins.
func (g guard) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" && u.Path != "/" {
		return false // "null", opaque or malformed origins
	}
	h := hostName(u.Host)
	if isLoopback(h) {
		return true
	}
	scheme := strings.ToLower(u.Scheme)
	return g.host != "" && h == g.host && scheme == g.scheme && portOf(scheme, u.Port()) == g.port
}

// hostName is the lower-cased host of a Host header or URL host, without port, brackets or
// a trailing dot; "" when the port is not a number ("localhost:80.evil.example" names no
// loopback host).
func hostName(hostport string) string {
	hostport = strings.TrimSpace(hostport)
	h, port, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	} else if port == "" || strings.Trim(port, "0123456789") != "" {
		return ""
	}
	h = strings.Trim(h, "[]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

func portOf(scheme, port string) string {
	if port != "" {
		return port
	}
	switch scheme {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

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
		switch {
		case errors.Is(err, search.ErrBadCursor):
			e = invalidArg("cursor", "is not a cursor of this search (changed, from another query, type or limit, or from before the content changed)",
				"Call again without cursor to start from the first page, or pass the nextCursor of the previous result unchanged with the same query, type and limit.").(*answerdesk.Error)
		case errors.Is(err, search.ErrEmptyQuery):
			e = invalidArg("query", "has no words to search for", "Pass one or more words, e.g. \"call recordings retention\".").(*answerdesk.Error)
		default:
			logger.ErrorContext(ctx, "mcp tool failed", "tool", tool, "err", err, "request_id", answerdesk.RequestIDFromContext(ctx))
			return mcpgo.NewToolResultError("internal error: the server failed to answer this call. Try again later.")
		}
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

// args reads the arguments of a call, refusing names the tool does not take.
type args struct {
	m map[string]any
}

func readArgs(req mcpgo.CallToolRequest, known ...string) (args, error) {
	raw := req.Params.Arguments // decoded from the request's JSON
	if raw == nil {
		return args{m: map[string]any{}}, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return args{}, invalidArg("arguments", "must be a JSON object", "Pass the arguments as an object, e.g. {\"query\": \"...\"}.")
	}
	for name := range m {
		if !slices.Contains(known, name) {
			takes := "no arguments"
			if len(known) > 0 {
				takes = "only " + strings.Join(known, ", ")
			}
			return args{}, invalidArg(name, "is not an argument of this tool", "Remove it; this tool takes "+takes+".")
		}
	}
	// The text rule of every request (answerdesk.ValidText), before any argument is read:
	// the domain's validation error, worded as REST words a query value's.
	if bad := answerdesk.TextErrors(m, ""); len(bad) > 0 {
		var v answerdesk.ValidationErrors
		for _, f := range bad {
			v.Add(f.Field, f.Message)
		}
		return args{}, v.Err()
	}
	return args{m: m}, nil
}

// str returns a string argument ("" when absent or null), trimmed. maxLen counts
// characters, as the tools' input schemas (JSON Schema maxLength) say.
func (a args) str(name string, maxLen int) (string, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidArg(name, fmt.Sprintf("must be a string, not %s", jsonType(v)), "Pass "+name+" as a JSON string.")
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); n > maxLen {
		return "", invalidArg(name, fmt.Sprintf("is %d characters long, over the limit of %d", n, maxLen), "Shorten "+name+".")
	}
	return s, nil
}

// text returns a string argument ("" when absent or null), trimmed, for a domain rule to
// check (its length included); the request body's limit (bytes, so never more characters)
// bounds it meanwhile.
func (a args) text(name string) (string, error) {
	return a.str(name, maxBodyBytes)
}

// integer returns an integer argument in lo..hi, def when absent or null. A whole number
// given as a string ("5") is accepted.
func (a args) integer(name string, lo, hi, def int) (int, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def, nil
	}
	bad := invalidArg(name, fmt.Sprintf("must be an integer from %d to %d", lo, hi),
		fmt.Sprintf("Pass %s as a whole number from %d to %d, or leave it out for the default %d.", name, lo, hi, def))
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, bad
		}
		n = f
	default:
		return 0, bad
	}
	if n != float64(int(n)) || int(n) < lo || int(n) > hi {
		return 0, bad
	}
	return int(n), nil
}

func jsonType(v any) string {
	switch v.(type) {
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	}
	return "null"
}

// locate resolves what a caller passed to find a page: an absolute URL of this site, or a
// path ("/docs/errors", "/docs/errors.md", "docs/errors"); query and fragment are ignored.
// It returns the URL path, without ".md", or an error saying how to fix the argument.
func locate(arg, value, base string) (string, error) {
	if strings.ContainsAny(value, " \t\n") {
		return "", invalidArg(arg, "is not a URL or path", "Pass the page's URL (e.g. "+base+"/docs/errors) or its path (e.g. /docs/errors).")
	}
	u, err := url.Parse(value)
	if err != nil {
		return "", invalidArg(arg, "is not a valid URL or path", "Pass the page's URL (e.g. "+base+"/docs/errors) or its path (e.g. /docs/errors).")
	}
	if u.Scheme != "" || u.Host != "" {
		b, _ := url.Parse(base)
		if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") || b == nil || hostName(u.Host) != hostName(b.Host) {
			return "", invalidArg(arg, fmt.Sprintf("%q is not a page of this site", value),
				"Only pages of "+base+" can be read: pass a URL that starts with "+base+" or a path such as /docs/errors.")
		}
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	p = strings.TrimSuffix(p, ".md")
	if p != "/" {
		p = strings.TrimRight(p, "/")
	}
	if p == "/index" {
		p = "/"
	}
	return p, nil
}

// notFound is the error of a page that does not exist.
func notFound(what, hint string) error {
	return &answerdesk.Error{Code: answerdesk.ENOTFOUND, Message: what, Hint: hint}
}
