package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/answerdesk/answerdesk"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

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
