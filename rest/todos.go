package rest

import (
	"context"
	"net/http"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listToDos(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	f := answerdesk.ToDoFilter{Paging: q.paging(answerdesk.DefaultToDoPageSize, answerdesk.MaxToDoPageSize)}
	f.State = answerdesk.CheckToDoState(&q.errs, q.str("state"))
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.ToDos.FindToDos(r.Context(), caller(r), f)
	s.writeList(w, r, list, meta, err)
}

func (s *Server) createToDo(w http.ResponseWriter, r *http.Request) {
	serveBody(s, w, r, answerdesk.ParseToDoCreate, s.ToDos.CreateToDo)
}

func (s *Server) getToDo(w http.ResponseWriter, r *http.Request) {
	t, err := s.ToDos.FindToDo(r.Context(), caller(r), chi.URLParam(r, "id"))
	s.writeOne(w, r, t, err)
}

// updateToDo is PATCH /api/v2/to-dos/{id}: a partial update.
func (s *Server) updateToDo(w http.ResponseWriter, r *http.Request) {
	serveBody(s, w, r, answerdesk.ParseToDoPatch, at(chi.URLParam(r, "id"), s.ToDos.UpdateToDo))
}

// toDoAction serves a lifecycle route: pause, resume, or cancel (DELETE).
func (s *Server) toDoAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		do := map[string]func(context.Context, *answerdesk.Caller, string) (*answerdesk.ToDo, error){
			answerdesk.ToDoPause: s.ToDos.PauseToDo, answerdesk.ToDoResume: s.ToDos.ResumeToDo, answerdesk.ToDoCancel: s.ToDos.CancelToDo,
		}[action]
		t, err := do(r.Context(), caller(r), chi.URLParam(r, "id"))
		s.writeOne(w, r, t, err)
	}
}

// listToDoDeliveries is GET /api/v2/to-dos/{id}/deliveries.
func (s *Server) listToDoDeliveries(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	p := q.paging(answerdesk.DefaultToDoDeliveryPageSize, answerdesk.MaxToDoDeliveryPageSize)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.ToDos.FindToDoDeliveries(r.Context(), caller(r), chi.URLParam(r, "id"), p)
	s.writeList(w, r, list, meta, err)
}
