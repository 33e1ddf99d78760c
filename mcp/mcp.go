// Package mcp serves answerdesk's MCP servers over Streamable HTTP (mark3labs/mcp-go): the
// public server (/mcp/public: company, services, pricing, site search, pages), the
// documentation server (/mcp/docs: passage search, pages, questions answered from the docs)
// and the account server (/mcp/account: one tool per customer API operation on messages,
// call recordings and To Dos, for the caller its bearer token stands for).
//
// Tool handlers call the same services as rest/ (content.Site, search.Index, the customer
// API's services), never HTTP to ourselves. Each tool has one constructor returning its definition and handler; the
// definitions are snapshotted in testdata/ so that a change to what models see is a
// reviewed diff (go test ./mcp -run TestToolSnapshots with UPDATE_SNAPSHOTS=1 rewrites them).
//
// Mounting (chi): r.Handle("/mcp/public", mcp.Handler(mcp.NewPublicServer(cfg), "/mcp/public", cfg)).
package mcp

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
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

	// Asker answers askQuestion (the one the site's "Ask the docs" box asks too); nil: an
	// extractive answerer over Index.
	Asker *search.Asker

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
