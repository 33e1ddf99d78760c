package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/answerdesk/answerdesk"
)

// RFC 7636 §4.1: 43 to 128 unreserved characters.
var verifierPattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// pkceMatches checks a code verifier against the stored S256 challenge.
func pkceMatches(verifier, challenge string) bool {
	if !verifierPattern.MatchString(verifier) {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// tokenResponse is the successful token endpoint answer (RFC 6749 §5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// parseTokenForm reads a form-encoded body, as the token and revocation endpoints take.
func parseTokenForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		oauthError(w, http.StatusBadRequest, "invalid_request", "send the parameters as application/x-www-form-urlencoded")
		return false
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the form could not be read")
		return false
	}
	for k, v := range r.PostForm {
		if len(v) > 1 {
			oauthError(w, http.StatusBadRequest, "invalid_request", k+" is repeated")
			return false
		}
		// No code, token or client id holds a NUL, and PostgreSQL refuses one even in a
		// lookup (a 500): refused here, as a malformed parameter.
		if !answerdesk.ValidText(k) || !answerdesk.ValidText(v[0]) {
			oauthError(w, http.StatusBadRequest, "invalid_request", "a parameter is not valid UTF-8 text, or holds a NUL character")
			return false
		}
	}
	return true
}

// tokenRequest reads the form of a token or revocation request and authenticates its
// client; on failure it has answered, and returns nil.
func (s *Server) tokenRequest(w http.ResponseWriter, r *http.Request) *answerdesk.OAuthClient {
	w.Header().Set("Cache-Control", "no-store")
	if !parseTokenForm(w, r) {
		return nil
	}
	c, err := s.authenticateClient(r)
	if err != nil {
		s.clientFailed(w, r, err)
		return nil
	}
	return c
}

// clientFailed answers a failed client authentication (RFC 6749 §5.2).
func (s *Server) clientFailed(w http.ResponseWriter, r *http.Request, err error) {
	if !errors.Is(err, errUnknownClient) {
		s.logger().ErrorContext(r.Context(), "authenticate client", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "try again later")
		return
	}
	if _, _, basic := r.BasicAuth(); basic {
		w.Header().Set("WWW-Authenticate", `Basic realm="answerdesk"`)
	}
	oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong client credentials")
}

// token is the token endpoint: authorization_code and refresh_token grants.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Pragma", "no-cache")
	c := s.tokenRequest(w, r)
	if c == nil {
		return
	}
	switch r.PostFormValue("grant_type") {
	case "authorization_code":
		s.exchangeCode(w, r, c)
	case "refresh_token":
		s.refresh(w, r, c)
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required")
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
	}
}

// newTokens makes a fresh access and refresh token pair.
func (s *Server) newTokens() (access, refresh string, a, rf answerdesk.IssuedToken) {
	now := s.now()
	access = answerdesk.NewSecret(answerdesk.AccessTokenPrefix)
	refresh = answerdesk.NewSecret(answerdesk.RefreshTokenPrefix)
	return access, refresh,
		answerdesk.IssuedToken{Hash: answerdesk.HashToken(access), ExpiresAt: now.Add(answerdesk.AccessTokenTTL)},
		answerdesk.IssuedToken{Hash: answerdesk.HashToken(refresh), ExpiresAt: now.Add(answerdesk.RefreshTokenTTL)}
}

func (s *Server) grantFailed(w http.ResponseWriter, r *http.Request, err error, what string) {
	if answerdesk.ErrorCode(err) == answerdesk.EUNAUTHORIZED {
		oauthError(w, http.StatusBadRequest, "invalid_grant", answerdesk.ErrorMessage(err))
		return
	}
	s.logger().ErrorContext(r.Context(), what, "err", err)
	oauthError(w, http.StatusInternalServerError, "server_error", "try again later")
}

func (s *Server) exchangeCode(w http.ResponseWriter, r *http.Request, c *answerdesk.OAuthClient) {
	plain := r.PostFormValue("code")
	if plain == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "code is required")
		return
	}
	if r.PostFormValue("code_verifier") == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "code_verifier is required (PKCE)")
		return
	}
	// Redeeming first makes the code single-use whatever the outcome of the checks below.
	code, err := s.Store.RedeemCode(r.Context(), answerdesk.HashToken(plain))
	if err != nil {
		s.grantFailed(w, r, err, "redeem code")
		return
	}
	invalid := func(desc string) { oauthError(w, http.StatusBadRequest, "invalid_grant", desc) }
	switch {
	case code.ClientID != c.ID:
		invalid("the code was issued to another client")
		return
	case !s.now().Before(code.ExpiresAt):
		invalid("the code has expired")
		return
	case r.PostFormValue("redirect_uri") != "" && r.PostFormValue("redirect_uri") != code.RedirectURI:
		invalid("redirect_uri does not match the authorization request")
		return
	case !pkceMatches(r.PostFormValue("code_verifier"), code.CodeChallenge):
		invalid("code_verifier does not match the code_challenge")
		return
	}
	if res := r.PostFormValue("resource"); res != "" && s.canonicalResource(res) != s.canonicalResource(code.Resource) {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource does not match the authorization request")
		return
	}
	access, refresh, a, rf := s.newTokens()
	g, err := s.Store.CreateGrant(r.Context(), code, a, rf)
	if err != nil {
		s.grantFailed(w, r, err, "create grant")
		return
	}
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(answerdesk.AccessTokenTTL.Seconds()),
		RefreshToken: refresh, Scope: strings.Join(g.Scopes, " ")})
}

func (s *Server) refresh(w http.ResponseWriter, r *http.Request, c *answerdesk.OAuthClient) {
	plain := r.PostFormValue("refresh_token")
	if plain == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "refresh_token is required")
		return
	}
	// Checked before rotating: a refused request must not cost the client its refresh token.
	// A scope within the grant's is accepted (RFC 6749 §6): the new access token carries
	// only the scopes asked for, while the grant and the new refresh token keep theirs, so a
	// later refresh may ask for the rest again.
	want, unknown := answerdesk.ParseScopes(r.PostFormValue("scope"))
	if len(unknown) > 0 {
		oauthError(w, http.StatusBadRequest, "invalid_scope", "unknown scope "+unknown[0])
		return
	}
	if res := r.PostFormValue("resource"); res != "" && s.canonicalResource(res) == "" {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource must be "+s.Resource())
		return
	}
	access, refresh, a, rf := s.newTokens()
	g, err := s.Store.RotateRefreshToken(r.Context(), answerdesk.HashToken(plain), c.ID, want, a, rf)
	if answerdesk.ErrorCode(err) == answerdesk.EINVALID {
		oauthError(w, http.StatusBadRequest, "invalid_scope", answerdesk.ErrorMessage(err))
		return
	}
	if err != nil {
		s.grantFailed(w, r, err, "rotate refresh token")
		return
	}
	scopes := g.Scopes
	if len(want) > 0 {
		scopes = want
	}
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(answerdesk.AccessTokenTTL.Seconds()),
		RefreshToken: refresh, Scope: strings.Join(scopes, " ")})
}

// revoke is the revocation endpoint (RFC 7009).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	c := s.tokenRequest(w, r)
	if c == nil {
		return
	}
	tok := r.PostFormValue("token")
	if tok == "" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "token is required")
		return
	}
	if err := s.Store.RevokeToken(r.Context(), answerdesk.HashToken(tok), c.ID); err != nil {
		if answerdesk.ErrorCode(err) == answerdesk.EFORBIDDEN {
			oauthError(w, http.StatusBadRequest, "unauthorized_client", "the token was issued to another client")
			return
		}
		s.logger().ErrorContext(r.Context(), "revoke token", "err", err)
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "try again later")
		return
	}
	w.WriteHeader(http.StatusOK)
}
