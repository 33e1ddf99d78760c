package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/answerdesk/answerdesk"
)

// query reads typed query parameters, collecting every type error as a field error. It is
// the customer API's answerdesk.Params.
type query struct {
	values url.Values
	errs   answerdesk.ValidationErrors
}

func newQuery(r *http.Request) *query { return &query{values: r.URL.Query()} }

// Text returns the parameter's value; a repeated parameter is an error.
func (q *query) Text(name string) string {
	vs := q.values[name]
	if len(vs) > 1 {
		q.errs.Add(name, "must be given once")
	}
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// ID returns an id parameter: in a query, text like any other.
func (q *query) ID(name string) string { return q.Text(name) }

// Int returns the parameter as an integer, or nil when absent.
func (q *query) Int(name string) *int {
	s := q.Text(name)
	if _, ok := q.values[name]; !ok {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.errs.Add(name, "must be an integer")
		return nil
	}
	return &n
}

// Bool returns the parameter as a boolean (true/false), or nil when absent.
func (q *query) Bool(name string) *bool {
	s := q.Text(name)
	if _, ok := q.values[name]; !ok {
		return nil
	}
	var b bool
	switch s {
	case "true", "1":
		b = true
	case "false", "0":
	default:
		q.errs.Add(name, "must be true or false")
		return nil
	}
	return &b
}

func (q *query) err() error { return q.errs.Err() }

// checked is what validate makes of the values read from q, once each has its type: a
// type error is answered before the rule's own.
func checked[T any](q *query, validate func() (T, error)) (T, error) {
	if err := q.err(); err != nil {
		var zero T
		return zero, err
	}
	return validate()
}

// servePage serves a list that takes only page and page_size: parse them, call find with
// the caller, write the page (or the error).
func servePage[T any](s *Server, w http.ResponseWriter, r *http.Request, defaultSize, maxSize int,
	find func(context.Context, *answerdesk.Caller, answerdesk.Paging) ([]T, answerdesk.PageMeta, error)) {
	q := newQuery(r)
	p := answerdesk.ReadPaging(q, &q.errs, defaultSize, maxSize)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := find(r.Context(), caller(r), p)
	s.writeList(w, r, list, meta, err)
}

// serveOne serves a request without a body for one thing: call with the caller and in
// (mostly a path parameter, read by the handler as its route spells it; at binds a second),
// and write the result or the error.
func serveOne[In, Out any](s *Server, w http.ResponseWriter, r *http.Request,
	call func(context.Context, *answerdesk.Caller, In) (Out, error), in In) {
	out, err := call(r.Context(), caller(r), in)
	s.writeOne(w, r, out, err)
}

// serveBody serves a request with a body: read it, parse it with the domain's parser, hand
// what the parser gives to call with the caller, and write the result (or the first error).
// A handler says only its parser and its service method (at binds a path parameter).
func serveBody[In, Out any](s *Server, w http.ResponseWriter, r *http.Request,
	parse func([]byte) (In, error), call func(context.Context, *answerdesk.Caller, In) (Out, error)) {
	body, err := readBody(r)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	in, err := parse(body)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	out, err := call(r.Context(), caller(r), in)
	s.writeOne(w, r, out, err)
}

// at binds a service method on one resource to the resource id (a path parameter), for
// serveBody.
func at[In, Out any](id string, call func(context.Context, *answerdesk.Caller, string, In) (Out, error)) func(context.Context, *answerdesk.Caller, In) (Out, error) {
	return func(ctx context.Context, c *answerdesk.Caller, in In) (Out, error) { return call(ctx, c, id, in) }
}

// decode is the parser of a body that is a request struct as it is: its properties are
// type-checked (answerdesk.DecodeJSONObject) and the service checks the rest.
func decode[T any](body []byte) (*T, error) {
	var in T
	if err := answerdesk.DecodeJSONObject(body, &in); err != nil {
		return nil, err
	}
	return &in, nil
}

// readBody reads the whole (size-limited) request body.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errPayloadTooLarge
		}
		return nil, answerdesk.Errorf(answerdesk.EPROCESSING, "could not read the request body")
	}
	return body, nil
}

// errPayloadTooLarge is recognised by the error writer's caller in handlers.
var errPayloadTooLarge = errors.New("payload too large")
