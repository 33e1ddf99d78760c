package oauth

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/answerdesk/answerdesk"
)

// authRequest is a validated authorization request.
type authRequest struct {
	client      *answerdesk.OAuthClient
	redirectURI string
	state       string
	challenge   string
	scopes      []string
	resource    string
	// raw are the request's parameters, carried through the consent form.
	raw url.Values
}

// authError is a failed authorization request. With redirect it goes back to the client
// (RFC 6749 §4.1.2.1); without, the user sees an error page: the client or its redirect
// URI cannot be trusted with the answer.
type authError struct {
	redirect    bool
	code, desc  string
	redirectURI string
	state       string
	clientID    string // the client the redirect would answer, when known
}

func (e *authError) Error() string { return e.code + ": " + e.desc }

var challengePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// authParams are the parameters an authorization request carries through consent.
var authParams = []string{"response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "scope", "resource"}

// parseAuthRequest validates an authorization request's parameters.
func (s *Server) parseAuthRequest(r *http.Request, q url.Values) (*authRequest, error) {
	// Until the client and its redirect URI are known good, errors are shown, not redirected.
	for _, p := range []string{"client_id", "redirect_uri"} {
		if len(q[p]) > 1 {
			return nil, &authError{code: "invalid_request", desc: p + " is repeated"}
		}
	}
	c, err := s.client(r, q.Get("client_id"))
	if errors.Is(err, errUnknownClient) {
		return nil, &authError{code: "invalid_client", desc: "The application is not registered with answerdesk (unknown client_id)."}
	}
	if err != nil {
		return nil, err
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if redirect == "" || !redirectAllowed(c.RedirectURIs, redirect) {
		return nil, &authError{code: "invalid_request", desc: "The redirect_uri is not one the application registered."}
	}
	fail := func(code, desc string) error {
		return &authError{redirect: true, code: code, desc: desc, redirectURI: redirect, state: q.Get("state"), clientID: c.ID}
	}
	for _, p := range authParams {
		if len(q[p]) > 1 {
			return nil, fail("invalid_request", p+" is repeated")
		}
	}
	if q.Get("response_type") != "code" {
		return nil, fail("unsupported_response_type", "response_type must be code")
	}
	switch q.Get("code_challenge_method") {
	case "S256":
	case "":
		return nil, fail("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256")
	default:
		return nil, fail("invalid_request", "code_challenge_method must be S256")
	}
	if !challengePattern.MatchString(q.Get("code_challenge")) {
		return nil, fail("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)")
	}
	scopes, unknown := answerdesk.ParseScopes(q.Get("scope"))
	if len(unknown) > 0 {
		return nil, fail("invalid_scope", "unknown scope "+unknown[0])
	}
	if len(scopes) == 0 {
		scopes = answerdesk.AllScopes
	}
	resource := q.Get("resource")
	if resource == "" {
		resource = s.Resource()
	} else if s.canonicalResource(resource) == "" {
		return nil, fail("invalid_target", "resource must be "+s.Resource())
	}
	if len(q.Get("state")) > 1000 {
		return nil, fail("invalid_request", "state is longer than 1000 characters")
	}
	raw := url.Values{}
	for _, p := range authParams {
		if v := q.Get(p); v != "" {
			raw.Set(p, v)
		}
	}
	return &authRequest{client: c, redirectURI: redirect, state: q.Get("state"), challenge: q.Get("code_challenge"), scopes: scopes, resource: resource, raw: raw}, nil
}

// redirectWith sends the browser back to the client with params, state and iss.
func (s *Server) redirectWith(w http.ResponseWriter, r *http.Request, redirectURI, state string, params url.Values) {
	u, err := url.Parse(redirectURI)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "Authorization failed", "The redirect URI is not valid.")
		return
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", s.Issuer) // RFC 9207: lets the client detect a mix-up of servers
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	status := http.StatusFound
	if r.Method == http.MethodPost {
		status = http.StatusSeeOther // RFC 9700 §4.12: a 307 would repost the form to the client
	}
	http.Redirect(w, r, u.String(), status)
}

// authFailed answers a failed authorization request: back to the client when its redirect
// URI is trusted, an error page otherwise.
func (s *Server) authFailed(w http.ResponseWriter, r *http.Request, err error) {
	var ae *authError
	if !errors.As(err, &ae) {
		s.logger().ErrorContext(r.Context(), "authorize", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "Authorization failed", "Something went wrong on our side. Try again later.")
		return
	}
	if !ae.redirect {
		s.errorPage(w, http.StatusBadRequest, "Authorization failed", ae.desc)
		return
	}
	s.redirectWith(w, r, ae.redirectURI, ae.state, url.Values{"error": {ae.code}, "error_description": {ae.desc}})
}

// trustRedirect decides whether a failed authorization request may go back to the client.
// Anyone can register a client with any https redirect URI, so answering a bad request
// with a redirect would make this server an open redirector (RFC 9700 §4.11): a link to
// /oauth/authorize, or to /login?return_to= it, would bounce a user to any site under
// answerdesk's name. Errors are redirected only when the signed-in user has already
// consented to that client (a live grant): the user has trusted that destination before.
// Otherwise the error page is shown.
func (s *Server) trustRedirect(r *http.Request, sess *answerdesk.Session, err error) error {
	var ae *authError
	if !errors.As(err, &ae) || !ae.redirect {
		return err
	}
	ae.redirect = false
	if sess == nil || ae.clientID == "" {
		return err
	}
	grants, gerr := s.Store.ListGrants(r.Context(), sess.UserID)
	if gerr != nil {
		s.logger().ErrorContext(r.Context(), "authorize: list grants", "err", gerr)
		return err
	}
	for _, g := range grants {
		if g.ClientID == ae.clientID {
			ae.redirect = true
			break
		}
	}
	return err
}

type consentView struct {
	Title, ClientName, Email, CSRF string
	// Publisher is the host of a client ID metadata document; empty for a client that
	// registered itself, which answerdesk cannot vouch for.
	Publisher string
	// Destination is where the answer goes: the redirect URI's scheme and host, or
	// "an application on this computer" for a loopback redirect.
	Destination string
	Loopback    bool
	// Mismatch warns that a metadata document sends the answer to another host than its own.
	Mismatch bool
	// Provenance says where the client came from, beside its self-chosen name, so that a
	// name such as "Claude Desktop (verified by answerdesk)" cannot pass for a fact: the
	// host of a metadata document, or the date a self-registered client registered.
	Provenance string
	Scopes     []string
	Params     []struct{ Name, Value string }
}

// authorize shows the consent page, after sign-in when there is no session.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	sess := s.CurrentSession(r)
	req, err := s.parseAuthRequest(r, r.URL.Query())
	if err != nil {
		s.authFailed(w, r, s.trustRedirect(r, sess, err))
		return
	}
	if sess == nil {
		http.Redirect(w, r, loginURL(r), http.StatusFound)
		return
	}
	s.renderConsent(w, req, sess)
}

func (s *Server) renderConsent(w http.ResponseWriter, req *authRequest, sess *answerdesk.Session) {
	v := consentView{Title: "Authorize " + req.client.Name, ClientName: req.client.Name, Email: sess.Email, CSRF: sess.CSRF}
	redirect, _ := url.Parse(req.redirectURI)
	v.Destination = redirect.Scheme + "://" + redirect.Host
	v.Loopback = isLoopback(redirect.Hostname())
	if req.client.Metadata {
		if u, err := url.Parse(req.client.ID); err == nil {
			v.Publisher = u.Hostname()
			v.Mismatch = !v.Loopback && !strings.EqualFold(u.Hostname(), redirect.Hostname())
		}
	}
	if v.Publisher != "" {
		v.Provenance = "From " + v.Publisher + " (its client ID metadata document is published there)"
	} else {
		v.Provenance = "Registered on " + req.client.CreatedAt.UTC().Format("2 January 2006") + ", unverified: it answers to " + v.Destination
	}
	for _, sc := range req.scopes {
		v.Scopes = append(v.Scopes, answerdesk.ScopeDescriptions[sc]+" ("+sc+")")
	}
	for _, p := range authParams {
		if val := req.raw.Get(p); val != "" {
			v.Params = append(v.Params, struct{ Name, Value string }{p, val})
		}
	}
	s.page(w, http.StatusOK, "consent", v)
}

// authorizeDecision takes the consent form's answer: a code, or access_denied.
func (s *Server) authorizeDecision(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Authorization failed", "The form could not be read.")
		return
	}
	sess := s.CurrentSession(r)
	if sess == nil {
		s.errorPage(w, http.StatusUnauthorized, "Signed out", "Your session ended. Go back to the application and connect again.")
		return
	}
	if !sess.ValidCSRF(r.PostFormValue("csrf_token")) {
		s.errorPage(w, http.StatusForbidden, "Authorization failed", "The form expired or did not come from this site. Go back to the application and connect again.")
		return
	}
	req, err := s.parseAuthRequest(r, r.PostForm)
	if err != nil {
		s.authFailed(w, r, s.trustRedirect(r, sess, err))
		return
	}
	switch r.PostFormValue("decision") {
	case "allow":
	case "deny":
		s.redirectWith(w, r, req.redirectURI, req.state, url.Values{"error": {"access_denied"}, "error_description": {"the user denied access"}})
		return
	default:
		s.errorPage(w, http.StatusBadRequest, "Authorization failed", "Choose Allow or Deny.")
		return
	}
	plain := answerdesk.NewSecret(answerdesk.AuthCodePrefix)
	code := &answerdesk.AuthorizationCode{
		Hash: answerdesk.HashToken(plain), ClientID: req.client.ID, UserID: sess.UserID, RedirectURI: req.redirectURI,
		CodeChallenge: req.challenge, Scopes: req.scopes, Resource: req.resource, ExpiresAt: s.now().Add(answerdesk.AuthorizationCodeTTL),
	}
	if err := s.Store.SaveCode(r.Context(), code); err != nil {
		s.authFailed(w, r, err)
		return
	}
	s.logger().Info("authorization granted", "user_id", sess.UserID, "client_id", req.client.ID, "scopes", strings.Join(req.scopes, " "))
	s.redirectWith(w, r, req.redirectURI, req.state, url.Values{"code": {plain}})
}
