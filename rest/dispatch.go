package rest

import (
	"net/http"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listOnCallContacts(w http.ResponseWriter, r *http.Request) {
	servePage(s, w, r, answerdesk.DefaultContactPageSize, answerdesk.MaxContactPageSize, s.Dispatch.FindOnCallContacts)
}

func (s *Server) createOnCallContact(w http.ResponseWriter, r *http.Request) {
	serveBody(s, w, r, answerdesk.ParseOnCallContactCreate, s.Dispatch.CreateOnCallContact)
}

func (s *Server) deleteOnCallContact(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.Dispatch.DeleteOnCallContact, chi.URLParam(r, "id"))
}

func (s *Server) listDispatchDeliveries(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	f := answerdesk.DeliveryFilter{MessageID: q.Text("message_id"), Status: q.Text("status"), Page: q.Int("page"), PageSize: q.Int("page_size")}
	dq, err := checked(q, f.Validate)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := s.Dispatch.FindDispatchDeliveries(r.Context(), caller(r), dq)
	s.writeList(w, r, list, meta, err)
}

func (s *Server) replayDispatchDelivery(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.Dispatch.ReplayDispatchDelivery, chi.URLParam(r, "id"))
}
