package rest

import (
	"context"
	"net/http"
	"net/url"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

// Administration (the Accounts docs page): provisioning of accounts and users. Every rule, admin
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
	serveOne(s, w, r, s.Admin.FindAccount, chi.URLParam(r, "number"))
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

// addToList serves POST to one of an account's lists (admins only): body's one property,
// name, is the entry.
func addToList[Out any](s *Server, w http.ResponseWriter, r *http.Request, name string,
	body interface{ value() answerdesk.Opt[string] }, add func(context.Context, *answerdesk.Caller, string, string) (Out, error)) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, listEntry(name, body), at(chi.URLParam(r, "number"), add))
	}
}

// removeFromList serves DELETE of the entry in path parameter param from one of an account's
// lists.
func removeFromList[Out any](s *Server, w http.ResponseWriter, r *http.Request, param string,
	remove func(context.Context, *answerdesk.Caller, string, string) (Out, error)) {
	serveOne(s, w, r, at(chi.URLParam(r, "number"), remove), pathParam(r, param))
}

func (s *Server) addSMSNumber(w http.ResponseWriter, r *http.Request) {
	addToList(s, w, r, "number", &smsNumberBody{}, s.Admin.AddSMSNumber)
}

func (s *Server) removeSMSNumber(w http.ResponseWriter, r *http.Request) {
	removeFromList(s, w, r, "sms_number", s.Admin.RemoveSMSNumber)
}

func (s *Server) addSendingDomain(w http.ResponseWriter, r *http.Request) {
	addToList(s, w, r, "domain", &sendingDomainBody{}, s.Admin.AddSendingDomain)
}

func (s *Server) removeSendingDomain(w http.ResponseWriter, r *http.Request) {
	removeFromList(s, w, r, "domain", s.Admin.RemoveSendingDomain)
}

func (s *Server) addBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	addToList(s, w, r, "email", &blacklistBody{}, s.Admin.AddBlacklistedEmail)
}

func (s *Server) listBlacklistedEmails(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		account := chi.URLParam(r, "number")
		servePage(s, w, r, answerdesk.DefaultBlacklistPageSize, answerdesk.MaxBlacklistPageSize,
			func(ctx context.Context, c *answerdesk.Caller, p answerdesk.Paging) ([]*answerdesk.BlacklistEntry, answerdesk.PageMeta, error) {
				return s.Admin.FindBlacklist(ctx, c, account, p)
			})
	}
}

func (s *Server) removeBlacklistedEmail(w http.ResponseWriter, r *http.Request) {
	removeFromList(s, w, r, "email", s.Admin.RemoveBlacklistedEmail)
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
	serveOne(s, w, r, s.Admin.FindUser, pathParam(r, "id"))
}

func (s *Server) updateUser(w http.ResponseWriter, r *http.Request) {
	if s.requireAdmin(w, r) {
		serveBody(s, w, r, decode[answerdesk.UserUpdate], at(pathParam(r, "id"), s.Admin.UpdateUser))
	}
}
