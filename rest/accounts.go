package rest

import (
	"net/http"

	"github.com/answerdesk/answerdesk"
)

func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	p := q.paging(answerdesk.DefaultAccountPageSize, answerdesk.MaxAccountPageSize)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.Accounts.FindAccounts(r.Context(), caller(r), p)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	s.writeList(w, r, list, meta)
}

func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	me, err := s.Accounts.FindMe(r.Context(), caller(r))
	s.writeOne(w, r, me, err)
}
