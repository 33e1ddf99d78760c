package rest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/answerdesk/answerdesk"
)

// TwilioHooks configures the endpoint Twilio calls back when a recording is ready
// (POST /hooks/twilio/recording?account=NUMBER); an empty AuthToken serves no endpoint.
type TwilioHooks struct {
	AuthToken string
	// MediaHost is the host (and port) recording media URLs must be on: that of the
	// Twilio API base URL. A callback naming another host fetches nothing.
	MediaHost string
	Fetches   answerdesk.RecordingFetchQueue
	// OnFetch wakes the worker that fetches the recordings.
	OnFetch func()
}

func (s *Server) hookRoutes(r chi.Router) {
	r.With(limitBody(64<<10)).Post("/hooks/twilio/recording", s.twilioRecording)
}

// twilioRecording takes Twilio's RecordingStatusCallback: it checks X-Twilio-Signature
// against the URL Twilio called (BaseURL, path and query) and the form, queues the
// recording's fetch (once per RecordingSid) and answers 204 at once; the fetch happens in
// the background, retried until the media is there.
func (s *Server) twilioRecording(w http.ResponseWriter, r *http.Request) {
	h := s.Twilio
	if err := r.ParseForm(); err != nil {
		s.Error(w, r, &answerdesk.Error{Code: answerdesk.EPROCESSING, Message: "the body must be a form (application/x-www-form-urlencoded)"})
		return
	}
	called := s.BaseURL + r.URL.RequestURI()
	if !answerdesk.ValidTwilioSignature(h.AuthToken, called, r.PostForm, r.Header.Get("X-Twilio-Signature")) {
		s.Error(w, r, &answerdesk.Error{Code: answerdesk.EFORBIDDEN, Message: "the X-Twilio-Signature header does not match this request",
			Hint: "Twilio signs with the account's auth token over the URL it called: serve --twilio-auth-token and --base-url must match it."})
		return
	}
	form := r.PostForm
	if form.Get("RecordingStatus") != "completed" {
		w.WriteHeader(http.StatusNoContent) // in-progress or absent: nothing to fetch yet
		return
	}
	var v answerdesk.ValidationErrors
	f := &answerdesk.RecordingFetch{AccountNumber: r.URL.Query().Get("account"), RecordingSID: form.Get("RecordingSid"),
		CallSID: form.Get("CallSid"), URL: form.Get("RecordingUrl")}
	for field, value := range map[string]string{"account": f.AccountNumber, "RecordingSid": f.RecordingSID, "CallSid": f.CallSID} {
		if value == "" || len(value) > answerdesk.MaxCallSIDLength {
			v.Add(field, "is required (at most 128 characters)")
		}
	}
	if u, err := url.Parse(f.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || !strings.EqualFold(u.Host, h.MediaHost) {
		v.Add("RecordingUrl", "must be a media URL on "+h.MediaHost+", the host of serve --twilio-base-url")
	}
	f.StartedAt = s.Now()
	if t := form.Get("RecordingStartTime"); t != "" {
		at, err := time.Parse(time.RFC1123Z, t)
		if err != nil {
			at, err = time.Parse(time.RFC3339, t)
		}
		if err != nil {
			v.Add("RecordingStartTime", "must be a time such as Mon, 22 Nov 2026 09:15:02 +0000")
		}
		f.StartedAt = at
	}
	if d := form.Get("RecordingDuration"); d != "" {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n < 0 {
			v.Add("RecordingDuration", "must be a number of seconds")
		}
		f.DurationSec = n
	}
	if err := v.Err(); err != nil {
		s.Error(w, r, err)
		return
	}
	if err := h.Fetches.EnqueueRecordingFetch(r.Context(), f); err != nil {
		s.Error(w, r, err)
		return
	}
	if h.OnFetch != nil {
		h.OnFetch()
	}
	w.WriteHeader(http.StatusNoContent)
}
