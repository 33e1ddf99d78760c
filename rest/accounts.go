package rest

import (
	"net/http"

	"github.com/answerdesk/answerdesk"
)

func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request) {
	servePage(s, w, r, answerdesk.DefaultAccountPageSize, answerdesk.MaxAccountPageSize, s.Accounts.FindAccounts)
}

func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	me, err := s.Accounts.FindMe(r.Context(), caller(r))
	s.writeOne(w, r, me, err)
}
