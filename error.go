// Package answerdesk holds the domain of the answering-service API: its types, the service
// interfaces that store/ implements and rest/ and mcp/ call, the caller model, validation
// rules and the error type every layer shares. It imports no other package of this module.
package answerdesk

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Error codes. rest/ and mcp/ map each to a status or tool error in one place.
const (
	EINVALID      = "invalid"      // input failed validation (422)
	EPROCESSING   = "processing"   // the request could not be processed, e.g. malformed JSON (400)
	ENOTFOUND     = "not_found"    // the resource does not exist or is not visible (404)
	EUNAUTHORIZED = "unauthorized" // missing or bad credentials (401)
	EFORBIDDEN    = "forbidden"    // authenticated but not allowed (403)
	ECONFLICT     = "conflict"     // the request conflicts with current state (409)
	EUNAVAILABLE  = "unavailable"  // a feature or dependency is not available (422 feature_unavailable)
	ERATELIMITED  = "rate_limited" // too many requests of this kind; RetryAfter says when to retry (429)
	ETOOLARGE     = "too_large"    // a request's content is over its limit (413 payload_too_large)
	EINTERNAL     = "internal"     // a bug or an outside failure; details are logged, not shown
)

// FieldError names one input field that failed validation.
type FieldError struct {
	Field   string `json:"field" jsonschema:"Name of the parameter or body property that failed."`
	Message string `json:"message" jsonschema:"What is wrong with it."`
}

// Error is the error every service returns for conditions a caller can act on.
// Anything that is not an *Error is treated as EINTERNAL.
type Error struct {
	Code    string
	Message string
	Hint    string
	Fields  []FieldError
	// RetryAfter is, for ERATELIMITED, how long until the request may succeed (rest/
	// sends it as Retry-After).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return fmt.Sprintf("answerdesk: %s: %s", e.Code, e.Message)
	}
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Field + " " + f.Message
	}
	return fmt.Sprintf("answerdesk: %s: %s (%s)", e.Code, e.Message, strings.Join(parts, "; "))
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Quote is s quoted for an error message that echoes what the caller sent (an id in a
// path, a number), cut as Clip cuts it.
func Quote(s string) string {
	if c := Clip(s); c != s {
		return strconv.Quote(strings.TrimSuffix(c, "…")) + "…"
	}
	return strconv.Quote(s)
}

// Clip is at most MaxEcho bytes of s (then "…"), for an error message that echoes
// input: an answer never echoes kilobytes of it back.
func Clip(s string) string {
	if len(s) > MaxEcho {
		return strings.ToValidUTF8(s[:MaxEcho], "") + "…"
	}
	return s
}

// MaxEcho bounds, in bytes, the input an error message quotes.
const MaxEcho = 64

// ErrorCode returns the code of the *Error in err's chain, or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	}
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the human message of the *Error in err's chain,
// or "internal error" so that internals never leak to callers.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// ValidationErrors collects field errors so a request reports every bad field at once.
type ValidationErrors struct {
	fields []FieldError
}

// ParamErr is the error of one bad parameter with what to do about it (hint): the one
// wording the public API, the customer API and the MCP tools give it, each naming the
// parameter its own way (field is the domain's name).
func ParamErr(field, problem, hint string) *Error {
	return &Error{Code: EINVALID, Message: "invalid " + field + ": " + problem, Hint: hint,
		Fields: []FieldError{{Field: field, Message: problem}}}
}

// FieldErr is the EINVALID error of one field that failed with message, worded as
// ValidationErrors words every field error ("invalid parameter field: message").
func FieldErr(field, message string) error {
	var v ValidationErrors
	v.Add(field, message)
	return v.Err()
}

// Add records that field failed with message.
func (v *ValidationErrors) Add(field, message string) {
	v.fields = append(v.fields, FieldError{Field: field, Message: message})
}

// mustBeOneOf is the message of a value that is not one of values: every enumeration's
// error says it in these words.
func mustBeOneOf(values []string) string {
	return "must be one of " + strings.Join(values, ", ")
}

// Has reports whether field already has an error, so later checks can skip it.
func (v *ValidationErrors) Has(field string) bool {
	for _, f := range v.fields {
		if f.Field == field {
			return true
		}
	}
	return false
}

// Err returns an EINVALID *Error listing every recorded field, or nil when there are none.
func (v *ValidationErrors) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	msg := "invalid parameter"
	if len(v.fields) == 1 {
		msg = fmt.Sprintf("invalid parameter %s: %s", v.fields[0].Field, v.fields[0].Message)
	} else {
		msg = fmt.Sprintf("%d invalid parameters", len(v.fields))
	}
	return &Error{Code: EINVALID, Message: msg, Fields: append([]FieldError(nil), v.fields...)}
}
