package rest

import (
	"cmp"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/answerdesk/answerdesk"
)

// ErrorObject is the error body both APIs answer with (the Errors docs page).
type ErrorObject struct {
	Status           int                     `json:"status"`
	Code             string                  `json:"code"`
	Message          string                  `json:"message"`
	Hint             string                  `json:"hint"`
	DocumentationURL string                  `json:"documentation_url"`
	Errors           []answerdesk.FieldError `json:"errors,omitempty"`
}

// API-level error codes that no domain error maps to.
const (
	codeNoRoute          = "rest_no_route"
	codeMethodNotAllowed = "method_not_allowed"
	codePayloadTooLarge  = "payload_too_large"
	codeRateLimited      = "rate_limited"
	codeInternal         = "internal_error"
)

// errorAnswer is how an error is answered: the HTTP status, the contract's error code, and the
// hint when the error carries none.
type errorAnswer struct {
	status     int
	code, hint string
}

// domainErrors answer the domain's error codes; any other is internalError. This is the only
// place that mapping lives.
var domainErrors = map[string]errorAnswer{
	answerdesk.EINVALID:      {http.StatusUnprocessableEntity, "invalid_parameter", "Fix the fields listed in errors and send the request again."},
	answerdesk.EUNAVAILABLE:  {http.StatusUnprocessableEntity, "feature_unavailable", "This feature is not enabled on this server."},
	answerdesk.EPROCESSING:   {http.StatusBadRequest, "processing_error", "Send a well-formed JSON object with Content-Type: application/json."},
	answerdesk.ENOTFOUND:     {http.StatusNotFound, "not_found", "Check the id; resources of accounts you cannot see are not found either."},
	answerdesk.EUNAUTHORIZED: {http.StatusUnauthorized, "unauthorized", "Send Authorization: Bearer <token>; create a token at /settings/keys, or with: answerdesk token create --user EMAIL."},
	answerdesk.EFORBIDDEN:    {http.StatusForbidden, "forbidden", "Your credentials do not allow this request."},
	answerdesk.ECONFLICT:     {http.StatusConflict, "conflict", "The resource changed or already exists; fetch it and try again."},
	answerdesk.ERATELIMITED:  {http.StatusTooManyRequests, codeRateLimited, "Wait for the number of seconds in Retry-After, then retry."},
	answerdesk.ETOOLARGE:     {http.StatusRequestEntityTooLarge, codePayloadTooLarge, "Send a smaller request body."},
}

// internalError answers everything that is not a domain error.
var internalError = errorAnswer{http.StatusInternalServerError, codeInternal, "Try again later; if it persists, contact support with the X-Request-Id header."}

// errorStatus maps a domain error code to the HTTP status and the contract's error code.
func errorStatus(code string) (int, string) {
	a, ok := domainErrors[code]
	if !ok {
		a = internalError
	}
	return a.status, a.code
}

// defaultHints tell a client how to fix the request when the error carries no hint: the
// answers' hints, and those of the API-level codes no domain error maps to.
var defaultHints = func() map[string]string {
	hints := map[string]string{
		internalError.code:   internalError.hint,
		codeNoRoute:          "Check the path against the API reference.",
		codeMethodNotAllowed: "Use one of the methods in the Allow header.",
		codePayloadTooLarge:  "Send a smaller request body.",
	}
	for _, a := range domainErrors {
		// A code's hint is one sentence whichever domain error maps to it.
		if h, ok := hints[a.code]; ok && h != a.hint {
			panic("rest: two hints for error code " + a.code)
		}
		hints[a.code] = a.hint
	}
	return hints
}()

// v1Error writes err as the public API answers it: a domain error about a parameter is a
// 400, rest_missing_callback_param when the parameter is required and missing, else
// rest_invalid_param, naming the parameter as the public API does (names maps the domain's
// field names to its parameters'); anything else is what Error makes of it.
func (s *Server) v1Error(w http.ResponseWriter, r *http.Request, err error, names map[string]string) {
	var e *answerdesk.Error
	if !errors.As(err, &e) || e.Code != answerdesk.EINVALID || len(e.Fields) == 0 {
		s.Error(w, r, err)
		return
	}
	f := e.Fields[0]
	name := cmp.Or(names[f.Field], f.Field)
	if f.Message == answerdesk.ProblemRequired {
		s.writeErrorObject(w, http.StatusBadRequest, codeMissingParam, name+" is required", cmp.Or(e.Hint, "Add "+name+"."), nil)
		return
	}
	s.writeErrorObject(w, http.StatusBadRequest, codeInvalidParam, "invalid parameter "+name+": "+f.Message, e.Hint, nil)
}

// writeErrorObject writes an error object with the given status and code.
func (s *Server) writeErrorObject(w http.ResponseWriter, status int, code, message, hint string, fields []answerdesk.FieldError) {
	if hint == "" {
		hint = defaultHints[code]
	}
	if status != http.StatusUnprocessableEntity {
		fields = nil
	}
	writeJSON(w, status, ErrorObject{
		Status: status, Code: code, Message: message, Hint: hint,
		DocumentationURL: s.BaseURL + "/docs/errors#" + code,
		Errors:           fields,
	})
}

// Error writes err as the contract's error object. Domain errors map by code; anything else
// is logged with the request id and shown as "internal error".
func (s *Server) Error(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errPayloadTooLarge) {
		s.writeErrorObject(w, http.StatusRequestEntityTooLarge, codePayloadTooLarge, "the request body is larger than the limit", "", nil)
		return
	}
	var e *answerdesk.Error
	if !errors.As(err, &e) {
		s.Logger.ErrorContext(r.Context(), "internal error", "err", err, "request_id", requestID(r.Context()), "path", r.URL.Path)
		s.writeErrorObject(w, http.StatusInternalServerError, codeInternal, "internal error", "", nil)
		return
	}
	status, code := errorStatus(e.Code)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	if status == http.StatusTooManyRequests {
		// Whole seconds, rounded up and never 0: a client retrying sooner is refused again.
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(max(e.RetryAfter, time.Second).Seconds()))))
	}
	if status >= 500 {
		s.Logger.ErrorContext(r.Context(), "internal error", "err", err, "request_id", requestID(r.Context()))
	}
	s.writeErrorObject(w, status, code, e.Message, e.Hint, e.Fields)
}

// writeJSON writes v as JSON with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // JSON for programs: "<" stays "<", not "\u003c"
	if err := enc.Encode(v); err != nil {
		slog.Debug("write response", "err", err)
	}
}
