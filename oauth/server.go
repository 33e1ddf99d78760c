// Package oauth is answerdesk's embedded OAuth 2.1 authorization server, built for the MCP
// authorization specification (2025-11-25): authorization server metadata (RFC 8414),
// dynamic client registration (RFC 7591) and client ID metadata documents, the
// authorization code flow with PKCE S256 only, resource indicators (RFC 8707), the iss
// response parameter (RFC 9207), refresh token rotation with family revocation, and
// revocation (RFC 7009). It also serves the web sign-in (/login) the consent page needs, and
// verifies bearer tokens for the account MCP server.
//
// State lives in the store (answerdesk.OAuthStore, answerdesk.SessionService); the protocol
// rules live here.
package oauth

import (
	"context"
	"embed"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

//go:embed templates/pages.html
var templateFS embed.FS

var pages = template.Must(template.ParseFS(templateFS, "templates/pages.html"))

// ResourcePath is the path of the protected resource: the account MCP server.
const ResourcePath = "/mcp/account"

// Server is the authorization server.
type Server struct {
	Store    answerdesk.OAuthStore
	Sessions answerdesk.SessionService
	Users    answerdesk.UserService
	Tokens   answerdesk.TokenService // customer API tokens are accepted as bearers too

	// Issuer is the service's public URL without a trailing slash (--base-url): the issuer
	// identifier, and the origin of the resource.
	Issuer string
	// HTTPClient fetches client ID metadata documents; it must refuse private addresses
	// unless the operator allowed them (see NewMetadataClient).
	HTTPClient *http.Client
	// Failed sign-ins are counted per email from one address (SignInLimit), per address
	// (SignInAddressLimit) and per email from anywhere (SignInEmailLimit); a key that has
	// used its allowance may not sign in until its window ends. Each attempt spends one of
	// each before its password is compared and gets them back when it was right, so the
	// limiters must be able to refund. Nil: not counted.
	SignInLimit, SignInAddressLimit, SignInEmailLimit answerdesk.RefundableRateLimiter
	// ClientAddress returns a request's client address (behind trusted proxies, from
	// X-Forwarded-For); nil: the peer address.
	ClientAddress func(*http.Request) string
	// MetadataLimit throttles fetches of client ID metadata documents per client address;
	// nil: no limit.
	MetadataLimit answerdesk.RateLimiter
	// RegisterLimit throttles client registrations per client address; nil: no limit.
	RegisterLimit answerdesk.RateLimiter

	Logger *slog.Logger
	Now    func() time.Time
}

func (s *Server) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Server) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// secureCookies reports whether cookies get the Secure attribute: whenever the service is
// served over https. Over plain http (a laptop's localhost) a Secure cookie would never be
// sent back by most clients.
func (s *Server) secureCookies() bool { return strings.HasPrefix(s.Issuer, "https://") }

// Resource is the canonical resource identifier of the account MCP server.
func (s *Server) Resource() string { return s.Issuer + ResourcePath }

// Routes mounts the metadata documents, the OAuth endpoints and the sign-in pages.
func (s *Server) Routes(r chi.Router) {
	r.Get("/.well-known/oauth-authorization-server", s.metadata)
	r.Get("/.well-known/oauth-protected-resource"+ResourcePath, s.protectedResource(ResourcePath))
	// The alias the MCP Inspector connects to (rest serves /mcp/account/mcp too).
	r.Get("/.well-known/oauth-protected-resource"+ResourcePath+"/mcp", s.protectedResource(ResourcePath+"/mcp"))
	r.Post("/oauth/register", s.register)
	r.Get("/oauth/authorize", s.authorize)
	r.Post("/oauth/authorize", s.authorizeDecision)
	r.Post("/oauth/token", s.token)
	r.Post("/oauth/revoke", s.revoke)
	r.Get("/login", s.loginPage)
	r.Post("/login", s.login)
	r.Post("/logout", s.logout)
}

// metadata serves the authorization server metadata (RFC 8414).
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	doc := map[string]any{
		"issuer":                                         s.Issuer,
		"authorization_endpoint":                         s.Issuer + "/oauth/authorize",
		"token_endpoint":                                 s.Issuer + "/oauth/token",
		"registration_endpoint":                          s.Issuer + "/oauth/register",
		"revocation_endpoint":                            s.Issuer + "/oauth/revoke",
		"scopes_supported":                               answerdesk.AllScopes,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{answerdesk.AuthMethodNone, answerdesk.AuthMethodSecretBasic, answerdesk.AuthMethodSecretPost},
		"revocation_endpoint_auth_methods_supported":     []string{answerdesk.AuthMethodNone, answerdesk.AuthMethodSecretBasic, answerdesk.AuthMethodSecretPost},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          s.Issuer + "/docs/authentication",
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, doc)
}

// protectedResource serves the protected resource metadata (RFC 9728) of the account MCP
// server as reached at path.
func (s *Server) protectedResource(path string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, map[string]any{
			"resource":                 s.Issuer + path,
			"authorization_servers":    []string{s.Issuer},
			"scopes_supported":         answerdesk.AllScopes,
			"bearer_methods_supported": []string{"header"},
			"resource_name":            "answerdesk account",
			"resource_documentation":   s.Issuer + "/docs/mcp-servers",
		})
	}
}

// canonicalResource returns the resource path a resource indicator names when it is the
// account MCP server of this service (at its path or the /mcp alias), or "" otherwise.
func (s *Server) canonicalResource(resource string) string {
	u, err := url.Parse(resource)
	if err != nil || u.Fragment != "" || u.RawQuery != "" {
		return ""
	}
	iss, _ := url.Parse(s.Issuer)
	if !strings.EqualFold(u.Scheme, iss.Scheme) || !strings.EqualFold(u.Host, iss.Host) {
		return ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == ResourcePath || p == ResourcePath+"/mcp" {
		return ResourcePath
	}
	return ""
}

// AuthenticateBearer returns the caller a bearer token stands for at the resource (an
// absolute URL of the account MCP server): an OAuth access token issued for that resource,
// or a customer API token (all scopes of its user). Anything else is EUNAUTHORIZED.
func (s *Server) AuthenticateBearer(ctx context.Context, token, resource string) (*answerdesk.Caller, error) {
	if strings.HasPrefix(token, answerdesk.TokenPrefix) {
		return s.Tokens.AuthenticateToken(ctx, token)
	}
	at, err := s.Store.AuthenticateAccessToken(ctx, token)
	if err != nil {
		return nil, err
	}
	want := s.canonicalResource(resource)
	if want == "" || s.canonicalResource(at.Resource) != want {
		return nil, answerdesk.Errorf(answerdesk.EUNAUTHORIZED, "the access token was issued for another resource")
	}
	return at.Caller, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// oauthError writes an OAuth error response (RFC 6749 §5.2).
func oauthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

// page renders an HTML page with headers that keep it out of frames and caches.
func (s *Server) page(w http.ResponseWriter, status int, name string, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// No form-action: the consent form's answer redirects to the client, which Chromium
	// checks against form-action too.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		s.logger().Error("render page", "page", name, "err", err)
	}
}

func (s *Server) errorPage(w http.ResponseWriter, status int, title, msg string) {
	s.page(w, status, "error", map[string]string{"Title": title, "Error": msg})
}
