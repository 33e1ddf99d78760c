package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/go-chi/chi/v5"
)

// opResponse collects one batch operation's answer in memory.
type opResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (o *opResponse) Header() http.Header { return o.header }
func (o *opResponse) WriteHeader(status int) {
	if o.status == 0 {
		o.status = status
	}
}
func (o *opResponse) Write(b []byte) (int, error) {
	if o.status == 0 {
		o.status = http.StatusOK
	}
	return o.body.Write(b)
}

// execute runs the operations of a batch in order through the API's own routes (not over
// the network, and without spending the rate limit again: the batch spent it).
func (a *publicAPI) execute(ctx context.Context, reqs []answerdesk.BatchRequest) []answerdesk.BatchResponse {
	out := make([]answerdesk.BatchResponse, len(reqs))
	// A fresh route context: the batch request's own would make the operations router
	// match against /batch.
	ctx = context.WithValue(ctx, chi.RouteCtxKey, chi.NewRouteContext())
	for i, br := range reqs {
		q := url.Values{}
		for k, v := range br.Query {
			q.Set(k, v)
		}
		// The operations router serves paths relative to the API's base, as batches name them.
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, (&url.URL{Path: br.Path, RawQuery: q.Encode()}).String(), nil)
		rec := &opResponse{header: http.Header{}}
		if err != nil {
			a.s.writeErrorObject(rec, http.StatusBadRequest, codeInvalidParam, "invalid operation: "+err.Error(), "", nil)
		} else {
			a.runOp(rec, req)
		}
		body := bytes.TrimSpace(rec.body.Bytes())
		if !json.Valid(body) {
			body, _ = json.Marshal(string(body))
		}
		out[i] = answerdesk.BatchResponse{ID: br.ID, Status: rec.status, Body: body}
	}
	return out
}

// runOp serves one operation, turning a panic into a 500 for that operation: async batches
// run outside the HTTP server's recoverer, where a panic would stop the process.
func (a *publicAPI) runOp(rec *opResponse, req *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			a.s.Logger.ErrorContext(req.Context(), "batch operation panic", "panic", fmt.Sprint(v), "path", req.URL.Path,
				"request_id", requestID(req.Context()))
			rec.header = http.Header{}
			rec.body.Reset()
			rec.status = 0
			a.s.writeErrorObject(rec, http.StatusInternalServerError, codeInternal, "internal error", "", nil)
		}
	}()
	a.serve.ServeHTTP(rec, req)
}

// ExecuteBatch runs a stored batch job's operations; the batch job runner calls it.
func (s *Server) ExecuteBatch(ctx context.Context, sandbox bool, reqs []answerdesk.BatchRequest) []answerdesk.BatchResponse {
	api := s.v1
	if sandbox {
		api = s.sandboxAPI
	}
	if api == nil {
		return nil
	}
	return api.execute(ctx, reqs)
}

func (a *publicAPI) batch(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		if errors.Is(err, errPayloadTooLarge) {
			a.s.writeErrorObject(w, http.StatusRequestEntityTooLarge, codePayloadTooLarge, "the batch body is larger than 64 KiB", "", nil)
			return
		}
		a.badParam(w, "body", "could not be read")
		return
	}
	reqs, err := answerdesk.ParseBatch(body)
	if err != nil {
		// ParseBatch's errors are domain errors naming the field; anything else is shown
		// generically rather than dereferencing a nil *answerdesk.Error.
		msg, code := "invalid parameter requests: the body is not a valid batch", codeInvalidParam
		if e := (*answerdesk.Error)(nil); errors.As(err, &e) {
			msg = e.Message
			if e.Code == answerdesk.EPROCESSING {
				_, code = errorStatus(e.Code)
			}
		}
		a.s.writeErrorObject(w, http.StatusBadRequest, code, msg, "", nil)
		return
	}
	// Every operation counts toward the limit.
	if !a.spend(w, r, len(reqs)) {
		return
	}
	if preferAsync(r) && a.s.Jobs != nil {
		job, err := a.s.Jobs.CreateBatchJob(r.Context(), a.s.ClientKey(r), a.sandbox, reqs, a.s.Now())
		if qe := (*answerdesk.BatchQuotaError)(nil); errors.As(err, &qe) {
			retry := int((qe.RetryAfter + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(retry))
			a.s.writeErrorObject(w, http.StatusTooManyRequests, codeRateLimited, qe.Message, fmt.Sprintf("Wait %d seconds, or send the batch without Prefer: respond-async.", retry), nil)
			return
		}
		if err != nil {
			a.s.Error(w, r, err)
			return
		}
		if a.s.OnBatchJob != nil {
			a.s.OnBatchJob()
		}
		w.Header().Set("Location", "/api/"+a.pathPrefix()+"/batch/jobs/"+job.ID)
		w.Header().Set("Preference-Applied", "respond-async")
		a.writeStatus(w, http.StatusAccepted, map[string]string{"jobId": job.ID, "status": answerdesk.BatchPending})
		return
	}
	a.writeStatus(w, http.StatusOK, map[string]any{"responses": a.execute(r.Context(), reqs)})
}

func preferAsync(r *http.Request) bool {
	for _, v := range r.Header.Values("Prefer") {
		for _, p := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "respond-async") {
				return true
			}
		}
	}
	return false
}

func (a *publicAPI) pathPrefix() string {
	if a.sandbox {
		return "sandbox/v1"
	}
	return "v1"
}

func (a *publicAPI) batchJob(w http.ResponseWriter, r *http.Request) {
	notFound := func() {
		a.s.writeErrorObject(w, http.StatusNotFound, codeJobNotFound, "no batch job "+answerdesk.Clip(chi.URLParam(r, "jobId"))+": jobs are kept 24 hours", "", nil)
	}
	if a.s.Jobs == nil {
		notFound()
		return
	}
	job, err := a.s.Jobs.FindBatchJob(r.Context(), chi.URLParam(r, "jobId"), a.s.Now())
	if answerdesk.ErrorCode(err) == answerdesk.ENOTFOUND || (err == nil && job.Sandbox != a.sandbox) {
		notFound()
		return
	}
	if err != nil {
		a.s.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if job.Status != answerdesk.BatchDone {
		a.writeStatus(w, http.StatusAccepted, map[string]string{"jobId": job.ID, "status": job.Status})
		return
	}
	a.writeStatus(w, http.StatusOK, map[string]any{"responses": job.Responses})
}

// writeStatus writes an uncached JSON body with status.
func (a *publicAPI) writeStatus(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		a.s.writeErrorObject(w, http.StatusInternalServerError, codeInternal, "internal error", "", nil)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// sandboxMarker marks every JSON object the sandbox answers with "sandbox": true, errors
// included, so a client can never mistake test data for real data.
func sandboxMarker(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&sandboxWriter{ResponseWriter: w}, r)
	})
}

type sandboxWriter struct {
	http.ResponseWriter
	started     bool
	wroteHeader bool
}

// WriteHeader drops a JSON body's Content-Length: the marker lengthens the body, and a
// length set for the unmarked body cut the marked one short.
func (s *sandboxWriter) WriteHeader(code int) {
	if code >= 200 && !s.wroteHeader {
		s.wroteHeader = true
		if strings.HasPrefix(s.Header().Get("Content-Type"), "application/json") {
			s.Header().Del("Content-Length")
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *sandboxWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *sandboxWriter) Write(b []byte) (int, error) {
	if !s.wroteHeader {
		s.WriteHeader(http.StatusOK)
	}
	if !s.started && len(b) > 0 {
		s.started = true
		if strings.HasPrefix(s.Header().Get("Content-Type"), "application/json") && bytes.HasPrefix(b, []byte("{")) &&
			!bytes.HasPrefix(b, []byte(`{"sandbox"`)) {
			sep := []byte(",")
			if bytes.HasPrefix(bytes.TrimLeft(b[1:], " \n"), []byte("}")) {
				sep = nil
			}
			if _, err := s.ResponseWriter.Write(append([]byte(`{"sandbox":true`), sep...)); err != nil {
				return 0, err
			}
			n, err := s.ResponseWriter.Write(b[1:])
			return n + 1, err
		}
	}
	return s.ResponseWriter.Write(b)
}
