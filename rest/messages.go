package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

type dataResponse struct {
	Data any `json:"data"`
}

type listResponse struct {
	Data any                 `json:"data"`
	Meta answerdesk.PageMeta `json:"meta"`
}

// writeList writes a page with its meta and an RFC 8288 Link header to the neighbours, or
// the error.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, data any, meta answerdesk.PageMeta, err error) {
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if link := s.listLink(r, meta); link != "" {
		w.Header().Set("Link", link)
	}
	writeJSON(w, http.StatusOK, listResponse{Data: data, Meta: meta})
}

// encodeList encodes a page and returns it with its Link header, for serveRead.
func (s *Server) encodeList(r *http.Request, data any, meta answerdesk.PageMeta, err error) ([]byte, string, error) {
	if err != nil {
		return nil, "", err
	}
	body, err := encodeJSON(listResponse{Data: data, Meta: meta})
	return body, s.listLink(r, meta), err
}

// listLink returns the RFC 8288 Link header to a page's neighbours, or "".
func (s *Server) listLink(r *http.Request, meta answerdesk.PageMeta) string {
	var links []string
	q := r.URL.Query()
	link := func(page int, rel string) {
		q.Set("page", strconv.Itoa(page))
		q.Set("page_size", strconv.Itoa(meta.PageSize))
		links = append(links, fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.BaseURL, r.URL.Path, q.Encode(), rel))
	}
	if meta.TotalPages != nil {
		if meta.Page < *meta.TotalPages {
			link(meta.Page+1, "next")
		}
		if meta.Page > 1 {
			link(min(meta.Page-1, max(*meta.TotalPages, 1)), "prev")
		}
	}
	return strings.Join(links, ", ")
}

// encodeOne encodes {"data": v} for serveRead.
func encodeOne(v any, err error) ([]byte, string, error) {
	if err != nil {
		return nil, "", err
	}
	body, err := encodeJSON(dataResponse{Data: v})
	return body, "", err
}

func caller(r *http.Request) *answerdesk.Caller { return answerdesk.CallerFromContext(r.Context()) }

func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	mq, err := checked(q, answerdesk.ReadMessageFilter(q).Validate)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	s.serveRead(w, r, readSpec{build: func() ([]byte, string, error) {
		list, meta, err := s.Messages.FindMessages(r.Context(), caller(r), mq)
		return s.encodeList(r, list, meta, err)
	}})
}

func (s *Server) recentMessages(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	raw := q.Int("limit")
	limit, err := checked(q, func() (int, error) { return answerdesk.CheckRecentLimit(raw) })
	if err != nil {
		s.Error(w, r, err)
		return
	}
	s.serveRead(w, r, readSpec{build: func() ([]byte, string, error) {
		return encodeOne(s.Messages.RecentMessages(r.Context(), caller(r), limit))
	}})
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request) {
	s.serveRead(w, r, readSpec{build: func() ([]byte, string, error) {
		return encodeOne(s.Messages.FindMessage(r.Context(), caller(r), chi.URLParam(r, "id")))
	}})
}

func (s *Server) createMessage(w http.ResponseWriter, r *http.Request) {
	serveBody(s, w, r, parseMessageBody, s.Messages.CreateMessage)
}

// messageCreateBody is the schema of the body of POST /api/v2/messages in the API
// reference: the message wrapped in an object, which parseMessageBody unwraps.
type messageCreateBody struct {
	Message answerdesk.MessageCreateRequest `json:"message"`
}

// parseMessageBody reads the body of POST /api/v2/messages (messageCreateBody) and parses
// the message. The message is kept raw for answerdesk.ParseMessageCreate, the parser
// create_message uses too, so both refuse a message that is not an object alike.
func parseMessageBody(body []byte) (*answerdesk.MessageCreate, error) {
	var in struct {
		Message json.RawMessage `json:"message"` // null included: ParseMessageCreate refuses it
	}
	if err := answerdesk.DecodeEnvelope(body, &in); err != nil {
		return nil, err
	}
	if in.Message == nil {
		return nil, &answerdesk.Error{Code: answerdesk.EINVALID, Message: "invalid parameter message: is required",
			Fields: []answerdesk.FieldError{{Field: "message", Message: "is required: send {\"message\": {...}}"}}}
	}
	return answerdesk.ParseMessageCreate(in.Message)
}

func (s *Server) acknowledgeMessage(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, s.Messages.AcknowledgeMessage, chi.URLParam(r, "id"))
}

func (s *Server) markMessageAsRead(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, at(chi.URLParam(r, "id"), s.Messages.SetMessageRead), true)
}

func (s *Server) markMessageAsUnread(w http.ResponseWriter, r *http.Request) {
	serveOne(s, w, r, at(chi.URLParam(r, "id"), s.Messages.SetMessageRead), false)
}

// writeOne writes {"data": v} or the error.
func (s *Server) writeOne(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		s.Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataResponse{Data: v})
}
