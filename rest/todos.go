package rest

import (
	"net/http"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listToDos(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	p := q.paging(answerdesk.DefaultToDoPageSize, answerdesk.MaxToDoPageSize)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.ToDos.FindToDos(r.Context(), caller(r), p)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	s.writeList(w, r, list, meta)
}

func (s *Server) createToDo(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	req, err := answerdesk.ParseToDoCreate(body)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	t, err := s.ToDos.CreateToDo(r.Context(), caller(r), req)
	s.writeOne(w, r, t, err)
}

func (s *Server) getToDo(w http.ResponseWriter, r *http.Request) {
	t, err := s.ToDos.FindToDo(r.Context(), caller(r), chi.URLParam(r, "id"))
	s.writeOne(w, r, t, err)
}
