package rest

import (
	"net/http"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listToDos(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	f := answerdesk.ReadToDoFilter(q, &q.errs)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.ToDos.FindToDos(r.Context(), caller(r), f)
	s.writeList(w, r, list, meta, err)
}

func (s *Server) createToDo(w http.ResponseWriter, r *http.Request) {
	serveBody(s, w, r, func(b []byte) (*answerdesk.ToDoCreate, error) {
		return answerdesk.ParseToDoCreateFor(s.ToDos.DeliveryTypeOffered, b)
	}, s.ToDos.CreateToDo)
}

func (s *Server) getToDo(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.ToDos.FindToDo, chi.URLParam(r, "id"))
}

// updateToDo is PATCH /api/v2/to-dos/{id}: a partial update.
func (s *Server) updateToDo(w http.ResponseWriter, r *http.Request) {
	serveBody(s, w, r, answerdesk.ParseToDoPatch, at(chi.URLParam(r, "id"), s.ToDos.UpdateToDo))
}

// The lifecycle routes: pause, resume, and cancel (DELETE).

func (s *Server) pauseToDo(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.ToDos.PauseToDo, chi.URLParam(r, "id"))
}

func (s *Server) resumeToDo(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.ToDos.ResumeToDo, chi.URLParam(r, "id"))
}

func (s *Server) cancelToDo(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.ToDos.CancelToDo, chi.URLParam(r, "id"))
}

// listToDoDeliveries is GET /api/v2/to-dos/{id}/deliveries.
func (s *Server) listToDoDeliveries(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	p := answerdesk.ReadPaging(q, &q.errs, answerdesk.DefaultToDoDeliveryPageSize, answerdesk.MaxToDoDeliveryPageSize)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.ToDos.FindToDoDeliveries(r.Context(), caller(r), chi.URLParam(r, "id"), p)
	s.writeList(w, r, list, meta, err)
}
