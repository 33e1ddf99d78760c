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

// decodeBody reads the request body into v (see answerdesk.DecodeJSONObject).
func decodeBody(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return answerdesk.DecodeJSONObject(body, v)
}

func (s *Server) createAccount(w http.ResponseWriter, r *http.Request) {
	// The admin check comes before the body is looked at, so a non-admin learns nothing
	// about what a valid request would be.
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return
	}
	var in answerdesk.AccountCreate
	if err := decodeBody(r, &in); err != nil {
		s.Error(w, r, err)
		return
	}
	a, err := s.Admin.CreateAccount(r.Context(), caller(r), &in)
	s.writeOne(w, r, a, err)
}

func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.FindAccount(r.Context(), caller(r), chi.URLParam(r, "number"))
	s.writeOne(w, r, a, err)
}

func (s *Server) updateAccount(w http.ResponseWriter, r *http.Request) {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return
	}
	var in answerdesk.AccountUpdate
	if err := decodeBody(r, &in); err != nil {
		s.Error(w, r, err)
		return
	}
	a, err := s.Admin.UpdateAccount(r.Context(), caller(r), chi.URLParam(r, "number"), &in)
	s.writeOne(w, r, a, err)
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

// bodyField decodes body, one of the list bodies, and returns its property, name; a
// missing or empty one is a 422.
func (s *Server) bodyField(w http.ResponseWriter, r *http.Request, name string, body interface{ value() answerdesk.Opt[string] }) (string, bool) {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return "", false
	}
	if err := decodeBody(r, body); err != nil {
		s.Error(w, r, err)
		return "", false
	}
	if v := body.value(); v.Value != "" {
		return v.Value, true
	}
	var ve answerdesk.ValidationErrors
	ve.Add(name, "is required")
	s.Error(w, r, ve.Err())
	return "", false
}

func (s *Server) addSMSNumber(w http.ResponseWriter, r *http.Request) {
	if n, ok := s.bodyField(w, r, "number", &smsNumberBody{}); ok {
		a, err := s.Admin.AddSMSNumber(r.Context(), caller(r), chi.URLParam(r, "number"), n)
		s.writeOne(w, r, a, err)
	}
}

func (s *Server) removeSMSNumber(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.RemoveSMSNumber(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "sms_number"))
	s.writeOne(w, r, a, err)
}

func (s *Server) addSendingDomain(w http.ResponseWriter, r *http.Request) {
	if d, ok := s.bodyField(w, r, "domain", &sendingDomainBody{}); ok {
		a, err := s.Admin.AddSendingDomain(r.Context(), caller(r), chi.URLParam(r, "number"), d)
		s.writeOne(w, r, a, err)
	}
}

func (s *Server) removeSendingDomain(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.RemoveSendingDomain(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "domain"))
	s.writeOne(w, r, a, err)
}

func (s *Server) addBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	if e, ok := s.bodyField(w, r, "email", &blacklistBody{}); ok {
		b, err := s.Admin.AddBlacklistedEmail(r.Context(), caller(r), chi.URLParam(r, "number"), e)
		s.writeOne(w, r, b, err)
	}
}

func (s *Server) removeBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	b, err := s.Admin.RemoveBlacklistedEmail(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "email"))
	s.writeOne(w, r, b, err)
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return
	}
	servePage(s, w, r, answerdesk.DefaultUserPageSize, answerdesk.MaxUserPageSize, s.Admin.FindUsers)
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request) {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return
	}
	var in answerdesk.UserCreate
	if err := decodeBody(r, &in); err != nil {
		s.Error(w, r, err)
		return
	}
	u, err := s.Admin.CreateUser(r.Context(), caller(r), &in)
	s.writeOne(w, r, u, err)
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	u, err := s.Admin.FindUser(r.Context(), caller(r), pathParam(r, "id"))
	s.writeOne(w, r, u, err)
}

func (s *Server) updateUser(w http.ResponseWriter, r *http.Request) {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return
	}
	var in answerdesk.UserUpdate
	if err := decodeBody(r, &in); err != nil {
		s.Error(w, r, err)
		return
	}
	u, err := s.Admin.UpdateUser(r.Context(), caller(r), pathParam(r, "id"), &in)
	s.writeOne(w, r, u, err)
}
