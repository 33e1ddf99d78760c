package oauth

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
)

// Bounds of registration and client ID metadata documents.
const (
	maxRegistrationBytes = 16 << 10
	maxMetadataBytes     = 5 << 10 // the draft's suggested limit
	maxRedirectURIs      = 10
	maxClientName        = 200
	metadataMinTTL       = 5 * time.Minute
	metadataMaxTTL       = 24 * time.Hour
)

// clientMetadata is the client metadata of RFC 7591 §2 we act on, as registered or as
// published in a client ID metadata document.
type clientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// validate checks the metadata and returns the RFC 7591 error code and a description.
func (m *clientMetadata) validate(metadataDoc bool) (code, desc string) {
	if len(m.RedirectURIs) == 0 {
		return "invalid_redirect_uri", "redirect_uris is required"
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return "invalid_redirect_uri", fmt.Sprintf("at most %d redirect_uris", maxRedirectURIs)
	}
	for _, u := range m.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return "invalid_redirect_uri", err.Error()
		}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return "invalid_client_metadata", "grant_types may hold only authorization_code and refresh_token"
		}
	}
	for _, t := range m.ResponseTypes {
		if t != "code" {
			return "invalid_client_metadata", "response_types may hold only code"
		}
	}
	switch m.TokenEndpointAuthMethod {
	case "":
		if metadataDoc {
			m.TokenEndpointAuthMethod = answerdesk.AuthMethodNone
		} else {
			// RFC 7591 §2's default; MCP clients that want none say so.
			m.TokenEndpointAuthMethod = answerdesk.AuthMethodSecretBasic
		}
	case answerdesk.AuthMethodNone:
	case answerdesk.AuthMethodSecretBasic, answerdesk.AuthMethodSecretPost:
		if metadataDoc {
			return "invalid_client_metadata", "a client ID metadata document cannot use a shared secret"
		}
	default:
		return "invalid_client_metadata", "token_endpoint_auth_method must be none, client_secret_basic or client_secret_post"
	}
	// The consent page shows the name to the person deciding: a control character (NUL,
	// which PostgreSQL cannot keep, or a line break) or a text-direction override (U+202E
	// makes "a\u202eelpmaxe.live" read "aevil.example" and turns the rest of the sentence
	// around) would let a client dress its name up.
	if strings.IndexFunc(m.ClientName, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) >= 0 {
		return "invalid_client_metadata", "client_name must be plain text: no control or text-direction characters"
	}
	if utf8.RuneCountInString(m.ClientName) > maxClientName {
		return "invalid_client_metadata", fmt.Sprintf("client_name is longer than %d characters", maxClientName)
	}
	for _, u := range []string{m.ClientURI, m.LogoURI} {
		if u == "" {
			continue
		}
		if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return "invalid_client_metadata", "client_uri and logo_uri must be http(s) URLs"
		}
	}
	if _, unknown := answerdesk.ParseScopes(m.Scope); len(unknown) > 0 {
		return "invalid_client_metadata", "unknown scope " + unknown[0]
	}
	return "", ""
}

// checkRedirectURI accepts https URLs and http URLs on a loopback host (RFC 8252 §7.3),
// with no fragment.
func checkRedirectURI(s string) error {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("redirect URI %q is not an absolute URL", s)
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return fmt.Errorf("redirect URI %q has a fragment", s)
	}
	if u.User != nil {
		// https://claude.ai@evil.example/ goes to evil.example, but reads as claude.ai to a
		// person checking where an authorization goes.
		return fmt.Errorf("redirect URI %q holds credentials (user@)", s)
	}
	if !asciiHost(u.Hostname()) {
		return fmt.Errorf("redirect URI %q: write an internationalised host name as punycode (xn--...)", s)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("redirect URI %q must be https, or http on a loopback address", s)
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// redirectAllowed reports whether uri is one of the registered redirect URIs: exactly, or
// for loopback http URIs with any port (native apps listen on an ephemeral port).
func redirectAllowed(registered []string, uri string) bool {
	given, err := url.Parse(uri)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == uri {
			return true
		}
		reg, err := url.Parse(r)
		if err != nil || reg.Scheme != "http" || given.Scheme != "http" || !isLoopback(reg.Hostname()) {
			continue
		}
		if reg.Hostname() == given.Hostname() && reg.EscapedPath() == given.EscapedPath() && reg.RawQuery == given.RawQuery &&
			given.User == nil && given.Fragment == "" {
			return true
		}
	}
	return false
}

// register is dynamic client registration (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if s.RegisterLimit != nil {
		d, err := s.RegisterLimit.Take(r.Context(), "register:"+s.clientAddress(r), 1, s.now())
		if err == nil && !d.Allowed {
			w.Header().Set("Retry-After", strconv.Itoa(int(d.Reset.Seconds())+1))
			oauthError(w, http.StatusTooManyRequests, "temporarily_unavailable", "too many registrations from this address; try again later")
			return
		}
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "send the client metadata as application/json")
		return
	}
	var m clientMetadata
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err := dec.Decode(&m); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", metadataDecodeError(err))
		return
	}
	if code, desc := m.validate(false); code != "" {
		oauthError(w, http.StatusBadRequest, code, desc)
		return
	}
	if m.ClientName == "" {
		m.ClientName = "Unnamed application"
	}
	c := &answerdesk.OAuthClient{
		ID: answerdesk.NewSecret("adc_")[:30], Name: m.ClientName, RedirectURIs: m.RedirectURIs,
		ClientURI: m.ClientURI, LogoURI: m.LogoURI, AuthMethod: m.TokenEndpointAuthMethod, CreatedAt: s.now(),
	}
	var secret string
	if c.AuthMethod != answerdesk.AuthMethodNone {
		secret = answerdesk.NewSecret(answerdesk.ClientSecretPrefix)
		c.SecretHash = answerdesk.HashToken(secret)
	}
	if err := s.Store.SaveClient(r.Context(), c); err != nil {
		s.logger().ErrorContext(r.Context(), "register client", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "try again later")
		return
	}
	resp := map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.CreatedAt.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": c.AuthMethod,
	}
	if m.Scope != "" {
		resp["scope"] = m.Scope
	}
	if c.ClientURI != "" {
		resp["client_uri"] = c.ClientURI
	}
	if c.LogoURI != "" {
		resp["logo_uri"] = c.LogoURI
	}
	if secret != "" {
		resp["client_secret"] = secret
		resp["client_secret_expires_at"] = 0
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, resp)
}

// isMetadataURL reports whether a client_id is a client ID metadata document URL: https
// with an ASCII host and a path without dot segments (the draft's client identifier rules).
func isMetadataURL(clientID string) bool {
	u, err := url.Parse(clientID)
	if err != nil || u.Scheme != "https" || u.Host == "" || !asciiHost(u.Hostname()) || u.Path == "" || u.Path == "/" ||
		u.Fragment != "" || u.User != nil || strings.Contains(clientID, "#") {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// asciiHost reports whether a host name is plain ASCII. Internationalised names must be
// given as punycode (xn--...), so that a consent page cannot show "сlaude.ai" with a
// Cyrillic "с" as if it were claude.ai.
func asciiHost(host string) bool {
	for _, r := range host {
		if r > 0x7e || r < 0x21 {
			return false
		}
	}
	return true
}

// errUnknownClient is a client_id that is neither registered nor a usable metadata document.
var errUnknownClient = errors.New("unknown client")

// client finds a client by id, fetching (or refreshing) a client ID metadata document when
// the id is one. Fetches are throttled per client address: anyone can name a URL.
func (s *Server) client(r *http.Request, id string) (*answerdesk.OAuthClient, error) {
	ctx := r.Context()
	if id == "" || len(id) > 2000 || !answerdesk.ValidText(id) { // no client id holds a NUL or invalid UTF-8, and PostgreSQL refuses them in a lookup
		return nil, errUnknownClient
	}
	c, err := s.Store.FindClient(ctx, id)
	switch {
	case err == nil && (!c.Metadata || s.now().Before(c.RefreshAfter)):
		return c, nil
	case err != nil && answerdesk.ErrorCode(err) != answerdesk.ENOTFOUND:
		return nil, err
	case !isMetadataURL(id):
		return nil, errUnknownClient
	}
	if s.MetadataLimit != nil {
		if d, err := s.MetadataLimit.Take(ctx, "metadata:"+s.clientAddress(r), 1, s.now()); err == nil && !d.Allowed {
			if c != nil {
				return c, nil
			}
			return nil, fmt.Errorf("%w: too many client ID metadata document fetches from this address", errUnknownClient)
		}
	}
	fresh, ferr := s.fetchMetadataDocument(ctx, id)
	if ferr != nil {
		var temp *temporaryError
		if c != nil && errors.As(ferr, &temp) && s.now().Sub(c.RefreshAfter) < metadataMaxTTL {
			// The publisher is down: keep the copy a while longer (at most a day past its
			// expiry), and do not ask again on every request.
			s.logger().Warn("refresh client metadata document", "client_id", id, "err", ferr)
			c.RefreshAfter = s.now().Add(metadataMinTTL)
			if err := s.Store.SaveClient(ctx, c); err != nil {
				return nil, err
			}
			return c, nil
		}
		return nil, fmt.Errorf("%w: %v", errUnknownClient, ferr)
	}
	if err := s.Store.SaveClient(ctx, fresh); err != nil {
		return nil, err
	}
	return fresh, nil
}

// temporaryError is a fetch failure worth retrying later: the network, or a 5xx.
type temporaryError struct{ err error }

func (e *temporaryError) Error() string { return e.err.Error() }

// fetchMetadataDocument fetches and checks a client ID metadata document.
func (s *Server) fetchMetadataDocument(ctx context.Context, id string) (*answerdesk.OAuthClient, error) {
	if s.HTTPClient == nil {
		return nil, errors.New("client ID metadata documents are not enabled")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.HTTPClient.Do(req)
	if err != nil {
		return nil, &temporaryError{fmt.Errorf("fetch %s: %w", id, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return nil, &temporaryError{fmt.Errorf("fetch %s: HTTP %d", id, resp.StatusCode)}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: HTTP %d", id, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", id, err)
	}
	if len(body) > maxMetadataBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", id, maxMetadataBytes)
	}
	var m clientMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", id, err)
	}
	if m.ClientID != id {
		return nil, fmt.Errorf("the document's client_id %q is not its URL", m.ClientID)
	}
	if code, desc := m.validate(true); code != "" {
		return nil, fmt.Errorf("%s: %s", code, desc)
	}
	name := m.ClientName
	if name == "" {
		u, _ := url.Parse(id)
		name = u.Host
	}
	now := s.now()
	return &answerdesk.OAuthClient{ID: id, Name: name, RedirectURIs: m.RedirectURIs, ClientURI: m.ClientURI, LogoURI: m.LogoURI,
		AuthMethod: answerdesk.AuthMethodNone, Metadata: true, CreatedAt: now, RefreshAfter: now.Add(cacheTTL(resp.Header))}, nil
}

// cacheTTL is how long a metadata document is kept: its max-age, within sane bounds.
func cacheTTL(h http.Header) time.Duration {
	ttl := time.Hour
	for _, d := range strings.Split(h.Get("Cache-Control"), ",") {
		d = strings.TrimSpace(d)
		if v, ok := strings.CutPrefix(d, "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				ttl = time.Duration(n) * time.Second
			}
		}
		if d == "no-store" || d == "no-cache" {
			ttl = 0
		}
	}
	return min(max(ttl, metadataMinTTL), metadataMaxTTL)
}

// authenticateClient identifies the client at the token and revocation endpoints: HTTP
// Basic, client_secret in the form, or client_id alone for public clients.
func (s *Server) authenticateClient(r *http.Request) (*answerdesk.OAuthClient, error) {
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 §2.3.1: Basic credentials are form-urlencoded first, and one request uses
		// one way of authenticating.
		if r.PostFormValue("client_secret") != "" {
			return nil, errUnknownClient
		}
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	c, err := s.client(r, id)
	if err != nil {
		return nil, err
	}
	switch c.AuthMethod {
	case answerdesk.AuthMethodNone:
		if secret != "" {
			return nil, errUnknownClient
		}
	default:
		// The client authenticates the way it registered (a client_secret_basic client does
		// not get to send its secret in the form, and the other way round).
		if (c.AuthMethod == answerdesk.AuthMethodSecretBasic) != basic || secret == "" ||
			subtle.ConstantTimeCompare(answerdesk.HashToken(secret), c.SecretHash) != 1 {
			return nil, errUnknownClient
		}
	}
	return c, nil
}

// metadataDecodeError says what is wrong with a registration body in the client's terms:
// the decoder's own words name Go types and fields of this server.
func metadataDecodeError(err error) string {
	var (
		typeErr *json.UnmarshalTypeError
		tooBig  *http.MaxBytesError
	)
	switch {
	case errors.As(err, &tooBig):
		return fmt.Sprintf("the client metadata is larger than %d bytes", maxRegistrationBytes)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("%s has the wrong type (%s): see RFC 7591 section 2", typeErr.Field, typeErr.Value)
	default:
		return "the body is not a JSON client metadata object"
	}
}
