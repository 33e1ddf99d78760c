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

// listBody is the body of an addition to one of an account's lists: {"number": "..."},
// {"domain": "..."} or {"email": "..."}, by route.
type listBody struct {
	Number answerdesk.Opt[string] `json:"number"`
	Domain answerdesk.Opt[string] `json:"domain"`
	Email  answerdesk.Opt[string] `json:"email"`
}

// bodyField decodes a listBody and returns its property name; a missing or empty one is a
// 422.
func (s *Server) bodyField(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	if err := caller(r).RequireAdmin(); err != nil {
		s.Error(w, r, err)
		return "", false
	}
	var in listBody
	if err := decodeBody(r, &in); err != nil {
		s.Error(w, r, err)
		return "", false
	}
	v := map[string]answerdesk.Opt[string]{"number": in.Number, "domain": in.Domain, "email": in.Email}[name]
	if v.Value == "" {
		var ve answerdesk.ValidationErrors
		ve.Add(name, "is required")
		s.Error(w, r, ve.Err())
		return "", false
	}
	return v.Value, true
}

func (s *Server) addSMSNumber(w http.ResponseWriter, r *http.Request) {
	if n, ok := s.bodyField(w, r, "number"); ok {
		a, err := s.Admin.AddSMSNumber(r.Context(), caller(r), chi.URLParam(r, "number"), n)
		s.writeOne(w, r, a, err)
	}
}

func (s *Server) removeSMSNumber(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.RemoveSMSNumber(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "sms_number"))
	s.writeOne(w, r, a, err)
}

func (s *Server) addSendingDomain(w http.ResponseWriter, r *http.Request) {
	if d, ok := s.bodyField(w, r, "domain"); ok {
		a, err := s.Admin.AddSendingDomain(r.Context(), caller(r), chi.URLParam(r, "number"), d)
		s.writeOne(w, r, a, err)
	}
}

func (s *Server) removeSendingDomain(w http.ResponseWriter, r *http.Request) {
	a, err := s.Admin.RemoveSendingDomain(r.Context(), caller(r), chi.URLParam(r, "number"), pathParam(r, "domain"))
	s.writeOne(w, r, a, err)
}

func (s *Server) addBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	if e, ok := s.bodyField(w, r, "email"); ok {
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
