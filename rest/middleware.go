package rest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5/middleware"
)

// requestID is the request's id (answerdesk.NewLogHandler logs it on every line logged with
// the request's context).
func requestID(ctx context.Context) string { return answerdesk.RequestIDFromContext(ctx) }

// requestID takes a sane incoming X-Request-Id or makes one, and echoes it.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if len(id) == 0 || len(id) > 64 || strings.ContainsFunc(id, func(c rune) bool { return c < 0x21 || c > 0x7e }) {
			b := make([]byte, 12)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(answerdesk.NewContextWithRequestID(r.Context(), id)))
	})
}

// recoverer turns a panic into a logged 500 with the error object, so no input crashes the
// process or leaves a connection without an answer.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.Logger.ErrorContext(r.Context(), "panic", "panic", fmt.Sprint(v), "request_id", requestID(r.Context()), "stack", string(debug.Stack()))
				s.writeErrorObject(w, http.StatusInternalServerError, codeInternal, "internal error", "", nil)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// accessLog logs one line per request.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		level := slog.LevelInfo
		if ww.Status() >= 500 {
			level = slog.LevelError
		}
		// The record is built here rather than by Logger.LogAttrs, which would walk the stack
		// (runtime.Callers) for a source location on every request; our handlers are made
		// without AddSource, so the line is the same without it.
		ctx := r.Context()
		h := s.Logger.Handler()
		if !h.Enabled(ctx, level) {
			return
		}
		rec := slog.NewRecord(time.Now(), level, "request", 0)
		rec.AddAttrs(slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", ww.Status()),
			slog.Int("bytes", ww.BytesWritten()), slog.Duration("duration", rec.Time.Sub(start)),
			slog.String("request_id", requestID(ctx)))
		_ = h.Handle(ctx, rec)
	})
}

// limitBody caps request bodies; reading past the cap fails with *http.MaxBytesError.
func limitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}

// authenticate resolves the bearer token into the request's Caller, or answers 401.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok {
			s.Error(w, r, &answerdesk.Error{Code: answerdesk.EUNAUTHORIZED, Message: "missing bearer token"})
			return
		}
		ctx := r.Context()
		var (
			c   *answerdesk.Caller
			err error
		)
		if vt, ok := s.Tokens.(versionedTokens); ok && s.Versions != nil {
			var v int64
			if c, v, err = vt.AuthenticateTokenVersion(s.pointQueryContext(ctx), token); err == nil {
				ctx = context.WithValue(ctx, authVersionKey{}, authVersion{c: c, v: v})
			}
		} else {
			c, err = s.Tokens.AuthenticateToken(s.pointQueryContext(ctx), token)
		}
		if err != nil {
			s.Error(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(answerdesk.NewContextWithCaller(ctx, c)))
	})
}

// versionedTokens is a TokenService that reads the caller's data version (DataVersions) in
// the token lookup itself (store.TokenService): a cached read then costs one database
// round trip instead of two.
type versionedTokens interface {
	AuthenticateTokenVersion(ctx context.Context, token string) (*answerdesk.Caller, int64, error)
}

// authVersionKey carries the authVersion read with the request's token.
type authVersionKey struct{}

// authVersion is the data version of c's accounts, read with c's token in this request.
type authVersion struct {
	c *answerdesk.Caller
	v int64
}

// pointQueryContext is the context of the one-row lookups every request makes (the token,
// the data version). On SQLite they take microseconds, so a client that hangs up cannot
// usefully stop them, while a cancellable context costs two goroutines per query
// (database/sql's and the driver's watchers of ctx.Done): about a tenth of the CPU of a
// cached read; there they run without the request's cancellation (values, such as the
// request id, are kept). On a database server they are round trips through a bounded pool,
// which must be given up with the request, or a stalled server would pile requests up.
func (s *Server) pointQueryContext(ctx context.Context) context.Context {
	if s.RemoteStore {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// bearerToken returns the token of an "Authorization: Bearer <token>" header. A request
// with two Authorization headers has none: which one counts would otherwise depend on the
// order a proxy left them in.
func bearerToken(r *http.Request) (string, bool) {
	hs := r.Header.Values("Authorization")
	if len(hs) != 1 {
		return "", false
	}
	h := hs[0]
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// BearerAuthenticator checks the bearer token of a protected resource: OAuth access tokens
// issued for it, and customer API tokens (implemented by oauth.Server).
type BearerAuthenticator interface {
	AuthenticateBearer(ctx context.Context, token, resource string) (*answerdesk.Caller, error)
}

// RequireBearer returns the middleware that protects the MCP server at resourcePath (the
// account server): a request without a valid bearer for that resource is answered 401 with
// the challenge the MCP authorization spec asks for, which points at the protected resource
// metadata (RFC 9728) and names the scopes; a valid one carries its Caller to the tools.
func (s *Server) RequireBearer(resourcePath string) func(http.Handler) http.Handler {
	scopes := strings.Join(answerdesk.AllScopes, " ")
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions { // CORS preflight carries no credentials
				next.ServeHTTP(w, r)
				return
			}
			// The resource is the URL the client asked for (RFC 9728 §3.3 has clients check
			// that the metadata names it): the server's path, or its /mcp alias.
			path := resourcePath
			if p, ok := r.Context().Value(requestedPathKey{}).(string); ok {
				path = p
			}
			resource := s.BaseURL + path
			token, ok := bearerToken(r)
			challenge := fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, s.BaseURL+"/.well-known/oauth-protected-resource"+path, scopes)
			if !ok {
				w.Header().Set("WWW-Authenticate", challenge)
				s.writeErrorObject(w, http.StatusUnauthorized, "unauthorized", "missing bearer token",
					"Connect through OAuth (the resource metadata is in WWW-Authenticate) or send a customer API token.", nil)
				return
			}
			c, err := s.Bearer.AuthenticateBearer(r.Context(), token, resource)
			if answerdesk.ErrorCode(err) == answerdesk.EUNAUTHORIZED {
				w.Header().Set("WWW-Authenticate", challenge+fmt.Sprintf(`, error="invalid_token", error_description=%q`, answerdesk.ErrorMessage(err)))
				s.writeErrorObject(w, http.StatusUnauthorized, "unauthorized", answerdesk.ErrorMessage(err),
					"Refresh the access token or authorize again.", nil)
				return
			}
			if err != nil {
				s.Error(w, r, err)
				return
			}
			next.ServeHTTP(w, r.WithContext(answerdesk.NewContextWithCaller(r.Context(), c)))
		})
	}
}
