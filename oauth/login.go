package oauth

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// Cookie names. The session cookie carries the plain session id; the pre-session CSRF
// cookie pairs with the sign-in form's hidden field (double submit), since there is no
// session yet to hold the token. Over https both take the __Host- prefix, which a sibling
// subdomain or a plain-http page cannot set, so neither can be planted.
const (
	sessionCookie   = "answerdesk_session"
	loginCSRFCookie = "answerdesk_login_csrf"
	maxFormBytes    = 64 << 10
)

func (s *Server) cookieName(name string) string {
	if s.secureCookies() {
		return "__Host-" + name
	}
	return name
}

// CurrentSession returns the signed-in session of the request, or nil.
func (s *Server) CurrentSession(r *http.Request) *answerdesk.Session {
	c, err := r.Cookie(s.cookieName(sessionCookie))
	if err != nil || c.Value == "" {
		return nil
	}
	sess, err := s.Sessions.FindSession(r.Context(), c.Value)
	if err != nil {
		return nil
	}
	return sess
}

// safeReturn keeps a post-sign-in destination on this site: a path of the keys page or of
// an authorization request, nothing else. Browsers drop tabs and newlines from URLs and
// read "\" as "/", so "/\t/evil.example" would leave the site; only known paths pass.
func safeReturn(to string) string {
	const home = "/settings/keys"
	u, err := url.Parse(to)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.IndexFunc(to, func(r rune) bool { return r < 0x21 || r == 0x7f || r == '\\' }) >= 0 {
		return home
	}
	if u.Path == "/oauth/authorize" || u.Path == home {
		return to
	}
	return home
}

type loginView struct {
	Title, Error, CSRF, ReturnTo, Email string
}

func (s *Server) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: s.cookieName(name), Value: value, Path: "/", HttpOnly: true, Secure: s.secureCookies(),
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge / time.Second),
	})
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if s.CurrentSession(r) != nil {
		http.Redirect(w, r, safeReturn(r.FormValue("return_to")), http.StatusSeeOther)
		return
	}
	s.renderLogin(w, r, http.StatusOK, "", "")
}

func (s *Server) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg, email string) {
	token := answerdesk.NewSecret("")
	s.setCookie(w, loginCSRFCookie, token, time.Hour)
	returnTo := r.FormValue("return_to")
	s.page(w, status, "login", loginView{Title: "Sign in", Error: msg, CSRF: token, ReturnTo: safeReturn(returnTo), Email: email})
}

// login checks the sign-in form: CSRF first, then the throttles, then the password.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Sign-in failed", "The form could not be read.")
		return
	}
	email := answerdesk.EmailKey(r.PostFormValue("email"))
	c, err := r.Cookie(s.cookieName(loginCSRFCookie))
	got := r.PostFormValue("csrf_token")
	if err != nil || got == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(got)) != 1 {
		s.renderLogin(w, r, http.StatusForbidden, "The form expired. Sign in again.", email)
		return
	}
	// No address holds a NUL or invalid UTF-8 (answerdesk.ValidText), and one would reach the throttle's keys,
	// which PostgreSQL refuses (a 500): asked again like a missing address.
	if email == "" || !answerdesk.ValidText(email) || r.PostFormValue("password") == "" {
		s.renderLogin(w, r, http.StatusUnprocessableEntity, "Enter your email and password.", email)
		return
	}
	// Only failures count, so people who sign in often are never locked out. Yet the check
	// and the count must be one step, or parallel attempts (on one replica or several) could
	// all pass the check before any failure is recorded: so each attempt spends a failure of
	// every throttle before its password is compared, and a right password gives them back.
	// The limiters decide each spend atomically (in the database for replicas), so no lock
	// is needed here, and attempts that share a key need not wait for each other's bcrypt.
	limits := s.signInLimits(email, r)
	now := s.now()
	ctx := context.WithoutCancel(r.Context()) // a right password is refunded even if the client has gone
	for i := range limits {
		l := &limits[i]
		d, err := l.limiter.Take(ctx, l.key, 1, now)
		// The window the spend counted in: another attempt's later clock may have started the
		// key's next window already, and the refund must go where the spend went.
		l.spentAt = now.Add(d.Reset - time.Nanosecond)
		if err != nil {
			s.refund(ctx, limits[:i])
			s.logger().ErrorContext(ctx, "sign-in throttle", "err", err)
			s.errorPage(w, http.StatusInternalServerError, "Sign-in failed", "Try again later.")
			return
		}
		if !d.Allowed {
			s.refund(ctx, limits[:i])
			w.Header().Set("Retry-After", fmt.Sprint(int(d.Reset.Seconds())+1))
			s.renderLogin(w, r, http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-in attempts. Try again in %d minutes.", int(d.Reset.Minutes())+1), email)
			return
		}
	}
	user, err := s.Users.CheckPassword(r.Context(), email, r.PostFormValue("password"))
	if err != nil { // the failures spent above stay spent
		if answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
			s.logger().ErrorContext(r.Context(), "check password", "err", err)
		}
		s.logger().Info("sign-in refused", "email", email, "addr", s.clientAddress(r))
		s.renderLogin(w, r, http.StatusUnauthorized, "Wrong email or password.", email)
		return
	}
	s.refund(ctx, limits)
	plain, _, err := s.Sessions.CreateSession(r.Context(), user.ID)
	if err != nil {
		s.logger().ErrorContext(r.Context(), "create session", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "Sign-in failed", "Try again later.")
		return
	}
	s.setCookie(w, sessionCookie, plain, answerdesk.SessionTTL)
	s.setCookie(w, loginCSRFCookie, "", -time.Second)
	http.Redirect(w, r, safeReturn(r.PostFormValue("return_to")), http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	sess := s.CurrentSession(r)
	if sess == nil { // nothing to end; a cross-site post carries no cookie and changes nothing
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if !sess.ValidCSRF(r.PostFormValue("csrf_token")) {
		s.errorPage(w, http.StatusForbidden, "Sign-out failed", "The form expired. Reload the page and try again.")
		return
	}
	c, _ := r.Cookie(s.cookieName(sessionCookie))
	if err := s.Sessions.DeleteSession(r.Context(), c.Value); err != nil {
		s.logger().ErrorContext(r.Context(), "delete session", "err", err)
	}
	s.setCookie(w, sessionCookie, "", -time.Second)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

type signInLimit struct {
	limiter answerdesk.RefundableRateLimiter
	key     string
	spentAt time.Time // a time in the window this attempt's spend counted in
}

// refund gives back the failures a sign-in attempt spent at now. A refund that fails is
// logged and the failure stays counted: that errs towards the throttle, not the attacker.
func (s *Server) refund(ctx context.Context, limits []signInLimit) {
	for _, l := range limits {
		if err := l.limiter.Refund(ctx, l.key, 1, l.spentAt); err != nil {
			s.logger().ErrorContext(ctx, "sign-in throttle", "err", err)
		}
	}
}

// signInLimits are the failure counters a sign-in attempt is checked against: the email
// from this address, the address, and the email from anywhere (a higher limit, so that
// someone elsewhere cannot lock a user out as cheaply).
func (s *Server) signInLimits(email string, r *http.Request) []signInLimit {
	addr := s.clientAddress(r)
	var out []signInLimit
	for _, l := range []signInLimit{
		{limiter: s.SignInLimit, key: "signin:pair:" + email + "|" + addr},
		{limiter: s.SignInAddressLimit, key: "signin:addr:" + addr},
		{limiter: s.SignInEmailLimit, key: "signin:email:" + email},
	} {
		if l.limiter != nil {
			out = append(out, l)
		}
	}
	return out
}

// clientAddress is the key sign-ins and registrations are counted against: ClientAddress
// (which knows the trusted proxies) or the peer, bucketed as every per-client limit is
// (answerdesk.ClientKey: IPv6 per /64).
func (s *Server) clientAddress(r *http.Request) string {
	var host string
	if s.ClientAddress != nil {
		host = s.ClientAddress(r)
	} else if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		host = h
	} else {
		host = r.RemoteAddr
	}
	return answerdesk.ClientKey(host)
}

// loginURL is where a request without a session is sent to sign in first.
func loginURL(r *http.Request) string {
	return "/login?return_to=" + url.QueryEscape(r.URL.RequestURI())
}
