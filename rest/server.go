// Package rest serves answerdesk over HTTP: the chi router, middleware, the customer API
// /api/v2, the public API /api/v1 (and its sandbox), the site and documentation pages, the
// sign-in and application keys pages, the Twilio recording callback, health and metrics
// endpoints and the recording audio. Handlers decode input, call
// one service method with the caller, and encode the result or hand the error to Error.
package rest

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/search"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// MaxBodyBytes bounds every request body of the customer API.
const MaxBodyBytes = 1 << 20

// Server holds the services the HTTP handlers call.
type Server struct {
	Messages   answerdesk.MessageService
	Recordings answerdesk.CallRecordingService
	ToDos      answerdesk.ToDoService
	Dispatch   answerdesk.DispatchService
	Tokens     answerdesk.TokenService
	Accounts   answerdesk.AccountService
	// Admin provisions accounts and users (admin callers only).
	Admin  answerdesk.AdminService
	Signer *answerdesk.AudioSigner
	// Ingest takes recordings from the phone system (POST /api/v2/call-recordings), with
	// audio up to MaxAudioBytes (default answerdesk.DefaultMaxAudioBytes).
	Ingest        answerdesk.RecordingIngestService
	MaxAudioBytes int64
	// AudioStores returns the audio store of a kind that recordings name (nil when this
	// server cannot reach it); AudioRedirect answers an audio link with a redirect to the
	// store's own presigned link where the store can make one.
	AudioStores   func(kind string) answerdesk.AudioStore
	AudioRedirect bool
	// Twilio serves the recording callback of Twilio (with an auth token).
	Twilio TwilioHooks
	// Site is the content served as pages and by the public API; nil serves neither.
	Site *content.Site
	// Public configures the public API (rate limit, proxies, deprecation).
	Public PublicConfig
	// Sandbox is the fixed test data of /api/sandbox/v1; nil serves no sandbox.
	Sandbox *content.Site
	// Search and SandboxSearch index Site and Sandbox for /search; nil serves no search.
	Search, SandboxSearch *search.Index
	// Asker answers the docs pages' "Ask the docs" box (/ask); nil serves no answers.
	Asker *search.Asker
	// Jobs keeps asynchronous batches; OnBatchJob wakes their runner.
	Jobs       answerdesk.BatchJobStore
	OnBatchJob func()

	// MCP are the MCP servers' handlers by mount path, built by internal/app
	// so that rest does not import mcp; each answers at exactly its path.
	MCP map[string]http.Handler
	// Bearer checks the account MCP server's bearer tokens (see RequireBearer).
	Bearer BearerAuthenticator
	// Mounts add routes built elsewhere: the OAuth server's endpoints and sign-in page.
	Mounts []func(chi.Router)
	// Session returns the signed-in web session of a request, or nil (oauth.Server's sign-in);
	// with Grants it serves the application keys page /settings/keys. Nil serves no page.
	Session func(*http.Request) *answerdesk.Session
	Grants  answerdesk.OAuthStore

	v1, sandboxAPI *publicAPI
	root           chi.Router
	// Ready reports whether the service can take traffic (database reachable, schema current).
	Ready func(ctx context.Context) error

	BaseURL string // public URL, no trailing slash
	Logger  *slog.Logger
	Metrics *Metrics
	// MetricsConfig protects /metrics (token, or a separate listener; else loopback only).
	MetricsConfig MetricsConfig
	Now           func() time.Time

	// Versions, when set, lets message and recording reads carry ETags, answer 304 and be
	// served from a cache of encoded responses (see serveRead); PageCacheBytes is that
	// cache's budget (DefaultPageCacheBytes when 0).
	Versions       DataVersions
	PageCacheBytes int64
	// DemoReceiver, when set, serves /demo/receiver, where the demo's on-call contact
	// pushes messages (serve --demo).
	DemoReceiver *DemoReceiver
	// RemoteStore: the store is a database server (PostgreSQL), where the token and
	// version lookups are network round trips that must stop when the request does.
	RemoteStore bool
	pages       *pageCache
	// renderedPages are the site's pages as rendered, by URL path (renderedPage).
	renderedPages sync.Map
}

// Handler returns the router with every route and middleware.
func (s *Server) Handler() http.Handler {
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Metrics == nil {
		s.Metrics = NewMetrics()
	}
	s.pages = newPageCache(cmp.Or(s.PageCacheBytes, DefaultPageCacheBytes))
	r := chi.NewRouter()
	r.Use(s.requestID, s.securityHeaders, s.recoverer, s.accessLog, s.Metrics.middleware, middleware.GetHead)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.notFound(w, r, "no route matches "+r.Method+" "+answerdesk.Clip(r.URL.Path))
	})
	s.root = r
	r.MethodNotAllowed(s.methodNotAllowed)

	r.Get("/healthz", s.healthz)
	r.Get("/readyz", s.readyz)
	r.Get("/metrics", s.metrics)
	r.Get("/recordings/{id}/audio", s.recordingAudio)
	for path, h := range s.MCP {
		h := s.withClientKey(h)
		r.Handle(path, h)
		// The MCP Inspector CLI replaces a URL path that does not end in /mcp with /mcp, so
		// each server also answers at <path>/mcp.
		r.Handle(path+"/mcp", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			req = req.WithContext(context.WithValue(req.Context(), requestedPathKey{}, req.URL.Path))
			req.URL.Path = path
			h.ServeHTTP(w, req)
		}))
	}
	if len(s.MCP) > 0 {
		r.Get("/.well-known/mcp", s.mcpCard)
	}
	for _, mount := range s.Mounts {
		mount(r)
	}
	if s.Session != nil {
		s.keysRoutes(r)
	}
	if s.DemoReceiver != nil {
		s.DemoReceiver.routes(s, r)
	}
	if s.Twilio.AuthToken != "" && s.Twilio.Fetches != nil {
		s.hookRoutes(r)
	}
	if s.Sandbox != nil {
		r.Route("/api/sandbox/v1", s.publicRoutes("api/sandbox/v1", s.Sandbox, s.SandboxSearch, true))
	}
	if s.Site != nil {
		s.siteRoutes(r)
		r.Route("/api/v1", s.publicRoutes(answerdesk.PublicRateBucket, s.Site, s.Search, false))
	}

	r.Route("/api/v2", s.v2Routes)
	return r
}

// withClientKey puts the request's ClientKey in its context, so that the MCP tools count
// the client exactly as the public API does (the same key, the same limiter).
func (s *Server) withClientKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(answerdesk.NewContextWithClientKey(r.Context(), s.ClientKey(r))))
	})
}

// requestedPathKey carries the path an MCP alias was requested at, for RequireBearer.
type requestedPathKey struct{}

// mcpServerInfo describes one MCP server in the discovery card and llms.txt.
var mcpServerInfo = map[string]struct{ name, description string }{
	"/mcp/public":  {"answerdesk public", "Company profile, services, pricing, site search and any page as Markdown. No account needed."},
	"/mcp/docs":    {"answerdesk docs", "Search the developer documentation, read pages, and ask questions answered from the docs with sources."},
	"/mcp/account": {"answerdesk account", "Your messages, call recordings and To Dos. OAuth 2.1 sign-in, or a customer API token."},
}

// mcpCard is the server card at /.well-known/mcp: where the MCP servers are and how to connect.
func (s *Server) mcpCard(w http.ResponseWriter, r *http.Request) {
	type server struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		URL         string `json:"url"`
		Transport   string `json:"transport"`
		Auth        string `json:"auth"`
	}
	card := struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		Servers     []server `json:"servers"`
		Docs        string   `json:"documentation"`
	}{Name: "answerdesk", Description: "MCP servers of the answerdesk answering service.", Docs: s.BaseURL + "/docs/mcp-servers"}
	for _, path := range []string{"/mcp/public", "/mcp/docs", "/mcp/account"} {
		if _, ok := s.MCP[path]; !ok {
			continue
		}
		auth := "none"
		if path == "/mcp/account" {
			auth = "oauth2"
		}
		info := mcpServerInfo[path]
		card.Servers = append(card.Servers, server{Name: info.name, Description: info.description, URL: s.BaseURL + path, Transport: "streamable-http", Auth: auth})
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, card)
}

// methodNotAllowed answers 405 with the methods the path does take in Allow.
func (s *Server) methodNotAllowed(w http.ResponseWriter, req *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if s.root.Match(chi.NewRouteContext(), m, req.URL.Path) {
			allowed = append(allowed, m)
		}
	}
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	s.writeErrorObject(w, http.StatusMethodNotAllowed, codeMethodNotAllowed, "method "+req.Method+" is not allowed on "+req.URL.Path, "", nil)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.Ready != nil {
		if err := s.Ready(r.Context()); err != nil {
			// Anyone may ask, so the reason goes to the log only: a driver's error names the
			// database's host, user and name, or the data directory's path.
			s.Logger.WarnContext(r.Context(), "not ready", "err", err, "request_id", requestID(r.Context()))
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable",
				"error": "the database does not answer or its schema is not current; the server log says why"})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
