package rest

import (
	"net/http"
	"net/url"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

// Administration (CONTRACT §1.8): provisioning of accounts and users. Every rule, admin
// check included, lives in answerdesk.AdminService; the command line calls the same methods.
// The routes are declared in v2Operations.

// pathParam returns a path parameter unescaped ("blocked%40acme.example" is an address).
func pathParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// requireAdmin writes the error and returns false unless the caller is an admin. It comes
// before the body is read, so a non-admin learns nothing about what a valid request would
// be.
func (s *Server) requireAdmin(w http.ResponseWriter, r *http.Request) bool {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return false
	}
	return true
}

func (s *Server) createAccount(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, decode[answerdesk.AccountCreate], s.Admin.CreateAccount)
	}
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.FindAccount(r.Context(), caller(r), chi.URLParam(r, "number"))
	s.writeOne(w, r, a, err)
}

func (s *Server) updateAccount(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, decode[answerdesk.AccountUpdate], at(chi.URLParam(r, "number"), s.Admin.UpdateAccount))
	}
}

// The bodies of the additions to an account's lists: one required string each.
type (
	smsNumberBody struct {
		Number answerdesk.Opt[string] `json:"number" jsonschema:"E.164 number such as +15550102001 (ten digits get +1). A number of another account is a 422."`
	}
	sendingDomainBody struct {
		Domain answerdesk.Opt[string] `json:"domain" jsonschema:"Domain name; adding it marks it authenticated (the admin vouches for its SPF and DKIM)."`
	}
	blacklistBody struct {
		Email answerdesk.Opt[string] `json:"email" jsonschema:"Address that may never be a To Do's from_email."`
	}
)

func (b *smsNumberBody) value() answerdesk.Opt[string]     { return b.Number }
func (b *sendingDomainBody) value() answerdesk.Opt[string] { return b.Domain }
func (b *blacklistBody) value() answerdesk.Opt[string]     { return b.Email }

// listEntry is the parser of body, one of the list bodies, whose property, name, is
// required: a missing or empty one is a 422.
func listEntry(name string, body interface{ value() answerdesk.Opt[string] }) func([]byte) (string, error) {
	return func(b []byte) (string, error) {
		if err := answerdesk.DecodeJSONObject(b, body); err != nil {
			return "", err
		}
		if v := body.value(); v.Value != "" {
			return v.Value, nil
		}
		var ve answerdesk.ValidationErrors
		ve.Add(name, "is required")
		return "", ve.Err()
	}
}

func (s *Server) addSMSNumber(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, listEntry("number", &smsNumberBody{}), at(chi.URLParam(r, "number"), s.Admin.AddSMSNumber))
	}
}

func (s *Server) removeSMSNumber(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.RemoveSMSNumber(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "sms_number"))
	s.writeOne(w, r, a, err)
}

func (s *Server) addSendingDomain(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, listEntry("domain", &sendingDomainBody{}), at(chi.URLParam(r, "number"), s.Admin.AddSendingDomain))
	}
}

func (s *Server) removeSendingDomain(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.RemoveSendingDomain(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "domain"))
	s.writeOne(w, r, a, err)
}

func (s *Server) addBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, listEntry("email", &blacklistBody{}), at(chi.URLParam(r, "number"), s.Admin.AddBlacklistedEmail))
	}
}

func (s *Server) removeBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	b, err := s.Admin.RemoveBlacklistedEmail(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "email"))
	s.writeOne(w, r, b, err)
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		servePage(s, w, r, answerdesk.DefaultUserPageSize, answerdesk.MaxUserPageSize, s.Admin.FindUsers)
	}
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, decode[answerdesk.UserCreate], s.Admin.CreateUser)
	}
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	u, err := s.Admin.FindUser(r.Context(), caller(r), pathParam(r, "id"))
	s.writeOne(w, r, u, err)
}

func (s *Server) updateUser(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, decode[answerdesk.UserUpdate], at(pathParam(r, "id"), s.Admin.UpdateUser))
	}
}
