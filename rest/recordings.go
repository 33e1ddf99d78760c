package rest

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

func (s *Server) listCallRecordings(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	rq, err := checked(q, answerdesk.ReadRecordingFilter(q).Validate)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	if rq.Sample {
		// A sample is a new random draw each time: nothing to cache or revalidate.
		list, meta, err := s.Recordings.FindCallRecordings(r.Context(), caller(r), rq)
		s.writeList(w, r, list, meta, err)
		return
	}
	s.serveRead(w, r, readSpec{scopes: []string{answerdesk.ScopeRecordingsRead}, window: signedURLWindow, build: func() ([]byte, string, error) {
		list, meta, err := s.Recordings.FindCallRecordings(r.Context(), caller(r), rq)
		return s.encodeList(r, list, meta, err)
	}})
}

func (s *Server) getCallRecording(w http.ResponseWriter, r *http.Request) {
	s.serveRead(w, r, readSpec{scopes: []string{answerdesk.ScopeRecordingsRead}, window: signedURLWindow, build: func() ([]byte, string, error) {
		return encodeOne(s.Recordings.FindCallRecording(r.Context(), caller(r), chi.URLParam(r, "id")))
	}})
}

func (s *Server) getMessageCallRecording(w http.ResponseWriter, r *http.Request) {
	s.serveRead(w, r, readSpec{scopes: []string{answerdesk.ScopeRecordingsRead, answerdesk.ScopeMessagesRead}, window: signedURLWindow,
		build: func() ([]byte, string, error) {
			return encodeOne(s.Recordings.FindMessageCallRecording(r.Context(), caller(r), chi.URLParam(r, "id")))
		}})
}

// recordingAudio serves a recording's audio to whoever holds an unexpired signed link,
// with Range support (players seek) through http.ServeContent.
func (s *Server) recordingAudio(w http.ResponseWriter, r *http.Request) {
	id, ok := answerdesk.ParseID(chi.URLParam(r, "id"))
	if !ok {
		s.Error(w, r, answerdesk.Errorf(answerdesk.ENOTFOUND, "no such recording"))
		return
	}
	q := r.URL.Query()
	if err := s.Signer.Verify(id, q.Get("expires"), q.Get("signature")); err != nil {
		s.Error(w, r, err)
		return
	}
	a, err := s.Recordings.RecordingAudio(r.Context(), id)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Cache-Control", "private, max-age=900")
	http.ServeContent(w, r, "recording-"+strconv.FormatInt(id, 10)+".wav", a.ModTime, bytes.NewReader(a.Data))
}
