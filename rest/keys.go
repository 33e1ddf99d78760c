package rest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

var keysTemplate = template.Must(template.New("keys.html").Funcs(template.FuncMap{
	"date": func(v any) string {
		switch t := v.(type) {
		case answerdesk.Time:
			return t.UTC().Format("2006-01-02 15:04 UTC")
		case *answerdesk.Time:
			return t.UTC().Format("2006-01-02 15:04 UTC")
		}
		return ""
	},
	"join": func(s []string) string { return strings.Join(s, " ") },
}).ParseFS(templateFS, "templates/keys.html"))

// keysRoutes serves the application keys page: a signed-in user's API tokens and OAuth
// grants (everyone's for admins), with create and revoke.
func (s *Server) keysRoutes(r chi.Router) {
	r.Group(func(r chi.Router) {
		r.Use(limitBody(64 << 10))
		r.Get("/settings/keys", s.keysPage)
		r.Post("/settings/keys", s.createKey)
		r.Post("/settings/keys/{id}/revoke", s.revokeKey)
		r.Post("/settings/grants/{id}/revoke", s.revokeGrant)
	})
}

type keysView struct {
	Email, CSRF, Nonce, Error, NewToken, NewName string
	Admin                                        bool
	Tokens                                       []*answerdesk.Token
	Grants                                       []*answerdesk.OAuthGrant
}

// signedIn returns the session, or redirects to sign-in and returns nil. Form posts must
// also carry the session's CSRF token.
func (s *Server) signedIn(w http.ResponseWriter, r *http.Request) *answerdesk.Session {
	sess := s.Session(r)
	if sess == nil {
		http.Redirect(w, r, "/login?return_to="+url.QueryEscape("/settings/keys"), http.StatusSeeOther)
		return nil
	}
	if r.Method == http.MethodPost && !sess.ValidCSRF(r.PostFormValue("csrf_token")) {
		s.renderKeys(w, r, sess, http.StatusForbidden, keysView{Error: "The form expired or did not come from this page. Try again."})
		return nil
	}
	return sess
}

// scope is whose tokens and grants a session manages: its own, or everyone's for admins.
func scope(sess *answerdesk.Session) int64 {
	if sess.Admin {
		return 0
	}
	return sess.UserID
}

func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, sess *answerdesk.Session, status int, v keysView) {
	var err error
	if v.Tokens, err = s.Tokens.ListTokens(r.Context(), scope(sess)); err != nil {
		s.Error(w, r, err)
		return
	}
	live := v.Tokens[:0]
	for _, t := range v.Tokens {
		if t.RevokedAt == nil {
			live = append(live, t)
		}
	}
	v.Tokens = live
	if s.Grants != nil {
		if v.Grants, err = s.Grants.ListGrants(r.Context(), scope(sess)); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	v.Email, v.Admin, v.CSRF, v.Nonce = sess.Email, sess.Admin, sess.CSRF, answerdesk.NewSecret("")
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-"+v.Nonce+"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if err := keysTemplate.Execute(w, v); err != nil {
		s.Logger.ErrorContext(r.Context(), "render keys page", "err", err)
	}
}

// newTokenCookie carries a just-created token from the form's POST to the page it redirects
// to (post/redirect/get: reloading the page must not create another token). It lives a
// minute, only on /settings/keys, and is cleared by the page that shows it.
const newTokenCookie = "answerdesk_new_token"

func (s *Server) setNewTokenCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: newTokenCookie, Value: value, Path: "/settings/keys", MaxAge: maxAge,
		HttpOnly: true, Secure: strings.HasPrefix(s.BaseURL, "https://"), SameSite: http.SameSiteStrictMode})
}

// newTokenMAC binds a new-token cookie to the session, keyed by its CSRF secret.
func newTokenMAC(sess *answerdesk.Session, token, name string) string {
	h := hmac.New(sha256.New, []byte(sess.CSRF))
	fmt.Fprintf(h, "new-token:%d:%s:%s", sess.UserID, token, name)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Server) keysPage(w http.ResponseWriter, r *http.Request) {
	sess := s.signedIn(w, r)
	if sess == nil {
		return
	}
	var v keysView
	if c, err := r.Cookie(newTokenCookie); err == nil {
		s.setNewTokenCookie(w, "", -1)
		// Only a value this session made is shown: a cookie planted by someone else (a
		// sibling subdomain can set cookies) must not hand the user a token of theirs.
		if q, err := url.ParseQuery(c.Value); err == nil && hmac.Equal([]byte(q.Get("mac")), []byte(newTokenMAC(sess, q.Get("token"), q.Get("name")))) {
			v.NewToken, v.NewName = q.Get("token"), q.Get("name")
		}
	}
	s.renderKeys(w, r, sess, http.StatusOK, v)
}

// createKey makes a token and redirects to the page that shows it once.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	sess := s.signedIn(w, r)
	if sess == nil {
		return
	}
	var scopes []string
	if sc := r.PostFormValue("scope"); sc != "" {
		scopes = []string{sc}
	}
	t, plain, err := s.Tokens.CreateScopedToken(r.Context(), sess.UserID, r.PostFormValue("name"), scopes)
	if err != nil {
		if answerdesk.ErrorCode(err) == answerdesk.EINVALID {
			label, field := "Token name", "name"
			if _, bad := fieldError(err, "scope"); bad {
				label, field = "Access", "scope"
			}
			msg, _ := fieldError(err, field)
			s.renderKeys(w, r, sess, http.StatusUnprocessableEntity, keysView{Error: label + " " + msg + "."})
			return
		}
		s.Error(w, r, err)
		return
	}
	s.Logger.InfoContext(r.Context(), "api token created", "user_id", sess.UserID, "token_id", t.ID)
	s.setNewTokenCookie(w, url.Values{"token": {plain}, "name": {t.Name}, "mac": {newTokenMAC(sess, plain, t.Name)}}.Encode(), 60)
	http.Redirect(w, r, "/settings/keys", http.StatusSeeOther)
}

// fieldError is the message of err's error on field, and whether it has one ("is not
// valid" when it has none).
func fieldError(err error, field string) (string, bool) {
	var e *answerdesk.Error
	if errors.As(err, &e) {
		for _, f := range e.Fields {
			if f.Field == field {
				return f.Message, true
			}
		}
	}
	return "is not valid", false
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	s.revoke(w, r, func(sess *answerdesk.Session, id int64) error {
		return s.Tokens.RevokeToken(r.Context(), scope(sess), id)
	})
}

func (s *Server) revokeGrant(w http.ResponseWriter, r *http.Request) {
	s.revoke(w, r, func(sess *answerdesk.Session, id int64) error {
		if s.Grants == nil {
			return answerdesk.Errorf(answerdesk.ENOTFOUND, "no grant %d", id)
		}
		return s.Grants.RevokeGrant(r.Context(), scope(sess), id)
	})
}

// revoke runs a revocation for the signed-in user, then shows the page again (303, so a
// reload does not post twice).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request, do func(*answerdesk.Session, int64) error) {
	sess := s.signedIn(w, r)
	if sess == nil {
		return
	}
	var err error = answerdesk.Errorf(answerdesk.ENOTFOUND, "no such token or application")
	if id, ok := answerdesk.ParseID(chi.URLParam(r, "id")); ok {
		err = do(sess, id)
	}
	switch {
	case err == nil:
	case answerdesk.ErrorCode(err) == answerdesk.ENOTFOUND:
		s.renderKeys(w, r, sess, http.StatusNotFound, keysView{Error: "That token or application is not yours, or no longer exists."})
		return
	default:
		s.Error(w, r, err)
		return
	}
	s.Logger.InfoContext(r.Context(), "revoked", "user_id", sess.UserID, "path", r.URL.Path)
	http.Redirect(w, r, "/settings/keys", http.StatusSeeOther)
}
