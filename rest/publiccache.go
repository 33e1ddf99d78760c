package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// publicCacheBytes is the budget of each public API's cache of encoded bodies (search
// results are about 6 KB: some 1,300 queries).
const publicCacheBytes = 8 << 20

// writeCached answers with the encoded body cached under key, or builds it: the public API's
// content and index change only with the binary, so a body is a function of the key alone.
// build writes its own error response and returns ok false, and nothing is cached then.
func (a *publicAPI) writeCached(w http.ResponseWriter, r *http.Request, key string, build func() (v any, ok bool)) {
	p, hit := a.cache.get(key, a.s.Now())
	if !hit {
		v, ok := build()
		if !ok {
			return
		}
		body, etag, err := encodePublic(v)
		if err != nil {
			a.s.Error(w, r, err)
			return
		}
		p = &cachedPage{key: key, body: body, etag: etag}
		a.cache.put(p)
	}
	writeBody(w, r, p.body, p.etag)
}

// encodePublic encodes a body of the public API and its ETag (of the JSON without the
// final newline).
func encodePublic(v any) (body []byte, etag string, err error) {
	body, err = json.Marshal(v)
	if err != nil {
		return nil, "", fmt.Errorf("encode response: %w", err)
	}
	return append(body, '\n'), etagOf(body), nil
}

// writeBody writes an encoded body of the public API (its reads and its document) with its
// ETag and Cache-Control, answering 304 to a matching If-None-Match.
func writeBody(w http.ResponseWriter, r *http.Request, body []byte, etag string) {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=300")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h["Content-Type"] = headerJSON
	// Known length: no chunked framing (bodies above 2 KB were chunked), one write fewer.
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	_, _ = w.Write(body)
}

// headerJSON is the Content-Type of JSON bodies, shared by every response that assigns it.
var headerJSON = []string{"application/json"}
