package rest

import (
	"net/http"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listToDos(w http.ResponseWriter, r *http.Request) {
	servePage(s, w, r, answerdesk.DefaultToDoPageSize, answerdesk.MaxToDoPageSize, s.ToDos.FindToDos)
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
