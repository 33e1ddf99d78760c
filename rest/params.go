package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/answerdesk/answerdesk"
)

// query reads typed query parameters, collecting every type error as a field error.
type query struct {
	values url.Values
	errs   answerdesk.ValidationErrors
}

func newQuery(r *http.Request) *query { return &query{values: r.URL.Query()} }

// str returns the parameter's value; a repeated parameter is an error.
func (q *query) str(name string) string {
	vs := q.values[name]
	if len(vs) > 1 {
		q.errs.Add(name, "must be given once")
	}
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// int returns the parameter as an integer, or nil when absent.
func (q *query) int(name string) *int {
	s := q.str(name)
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

// bool returns the parameter as a boolean (true/false), or nil when absent.
func (q *query) bool(name string) *bool {
	s := q.str(name)
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

// paging reads page and page_size against a list's default and maximum.
func (q *query) paging(defaultSize, maxSize int) answerdesk.Paging {
	page, size := q.int("page"), q.int("page_size")
	if q.errs.Has("page") || q.errs.Has("page_size") {
		return answerdesk.Paging{}
	}
	return answerdesk.CheckPaging(&q.errs, page, size, defaultSize, maxSize)
}

// servePage serves a list that takes only page and page_size: parse them, call find with
// the caller, write the page (or the error).
func servePage[T any](s *Server, w http.ResponseWriter, r *http.Request, defaultSize, maxSize int,
	find func(context.Context, *answerdesk.Caller, answerdesk.Paging) ([]T, answerdesk.PageMeta, error)) {
	q := newQuery(r)
	p := q.paging(defaultSize, maxSize)
	if err := q.err(); err != nil {
		s.Error(w, r, err)
		return
	}
	list, meta, err := find(r.Context(), caller(r), p)
	s.writeList(w, r, list, meta, err)
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

// decodeObject reads the request body as one JSON object of raw members.
func decodeObject(r *http.Request) (map[string]json.RawMessage, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, answerdesk.Errorf(answerdesk.EPROCESSING, "the request body must be a JSON object")
	}
	if dec.More() {
		return nil, answerdesk.Errorf(answerdesk.EPROCESSING, "the request body has data after the JSON object")
	}
	return obj, nil
}

// errPayloadTooLarge is recognised by the error writer's caller in handlers.
var errPayloadTooLarge = errors.New("payload too large")
