package oauth

import (
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
// session yet to hold the token.
const (
	SessionCookie   = "answerdesk_session"
	loginCSRFCookie = "answerdesk_login_csrf"
	maxFormBytes    = 64 << 10
)

// CurrentSession returns the signed-in session of the request, or nil.
func CurrentSession(r *http.Request, sessions answerdesk.SessionService) *answerdesk.Session {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil
	}
	sess, err := sessions.FindSession(r.Context(), c.Value)
	if err != nil {
		return nil
	}
	return sess
}

// CheckCSRF reports whether the form's csrf_token matches the session's.
func CheckCSRF(r *http.Request, sess *answerdesk.Session) bool {
	got := r.PostFormValue("csrf_token")
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) == 1
}

// safeReturn keeps a post-sign-in destination on this site: a path, not a URL elsewhere.
func safeReturn(to string) string {
	if to == "" || !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") || strings.HasPrefix(to, "/\\") || strings.ContainsAny(to, "\r\n") {
		return "/settings/keys"
	}
	return to
}

type loginView struct {
	Title, Error, CSRF, ReturnTo, Email string
}

func (s *Server) setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: "/", HttpOnly: true, Secure: s.secureCookies(),
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge / time.Second),
	})
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if CurrentSession(r, s.Sessions) != nil {
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

// clientAddress is the address sign-in attempts are counted against.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// login checks the sign-in form: CSRF first, then the throttles, then the password.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "Sign-in failed", "The form could not be read.")
		return
	}
	email := strings.ToLower(strings.TrimSpace(r.PostFormValue("email")))
	c, err := r.Cookie(loginCSRFCookie)
	got := r.PostFormValue("csrf_token")
	if err != nil || got == "" || subtle.ConstantTimeCompare([]byte(c.Value), []byte(got)) != 1 {
		s.renderLogin(w, r, http.StatusForbidden, "The form expired. Sign in again.", email)
		return
	}
	if email == "" || r.PostFormValue("password") == "" {
		s.renderLogin(w, r, http.StatusUnprocessableEntity, "Enter your email and password.", email)
		return
	}
	// Only failures count, so people who sign in often are never locked out; once a key
	// has used its allowance, even the right password waits for the window to end.
	limits := s.signInLimits(email, r)
	for _, l := range limits {
		d, err := l.limiter.Take(r.Context(), l.key, 0, s.now())
		if err != nil {
			s.logger().Error("sign-in throttle", "err", err)
			s.errorPage(w, http.StatusInternalServerError, "Sign-in failed", "Try again later.")
			return
		}
		if d.Remaining <= 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(d.Reset.Seconds())+1))
			s.renderLogin(w, r, http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-in attempts. Try again in %d minutes.", int(d.Reset.Minutes())+1), email)
			return
		}
	}
	user, err := s.Users.CheckPassword(r.Context(), email, r.PostFormValue("password"))
	if err != nil {
		if answerdesk.ErrorCode(err) != answerdesk.EUNAUTHORIZED {
			s.logger().Error("check password", "err", err)
		}
		for _, l := range limits {
			if _, err := l.limiter.Take(r.Context(), l.key, 1, s.now()); err != nil {
				s.logger().Error("sign-in throttle", "err", err)
			}
		}
		s.logger().Info("sign-in refused", "email", email, "addr", clientAddress(r))
		s.renderLogin(w, r, http.StatusUnauthorized, "Wrong email or password.", email)
		return
	}
	plain, _, err := s.Sessions.CreateSession(r.Context(), user.ID)
	if err != nil {
		s.logger().Error("create session", "err", err)
		s.errorPage(w, http.StatusInternalServerError, "Sign-in failed", "Try again later.")
		return
	}
	s.setCookie(w, SessionCookie, plain, answerdesk.SessionTTL)
	s.setCookie(w, loginCSRFCookie, "", -time.Second)
	http.Redirect(w, r, safeReturn(r.PostFormValue("return_to")), http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if sess := CurrentSession(r, s.Sessions); sess != nil {
		if !CheckCSRF(r, sess) {
			s.errorPage(w, http.StatusForbidden, "Sign-out failed", "The form expired. Reload the page and try again.")
			return
		}
		c, _ := r.Cookie(SessionCookie)
		if err := s.Sessions.DeleteSession(r.Context(), c.Value); err != nil {
			s.logger().Error("delete session", "err", err)
		}
	}
	s.setCookie(w, SessionCookie, "", -time.Second)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

type signInLimit struct {
	limiter answerdesk.RateLimiter
	key     string
}

func (s *Server) signInLimits(email string, r *http.Request) []signInLimit {
	var out []signInLimit
	if s.SignInLimit != nil {
		out = append(out, signInLimit{s.SignInLimit, "signin:email:" + email})
	}
	if s.SignInAddressLimit != nil {
		out = append(out, signInLimit{s.SignInAddressLimit, "signin:addr:" + clientAddress(r)})
	}
	return out
}

// loginURL is where a request without a session is sent to sign in first.
func loginURL(r *http.Request) string {
	return "/login?return_to=" + url.QueryEscape(r.URL.RequestURI())
}
