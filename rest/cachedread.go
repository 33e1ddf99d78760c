package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// DataVersions reads the data version of a caller's accounts (store.DB.DataVersion): it
// changes with every write to their messages or call recordings, and it refuses a caller
// that lacks one of scopes.
type DataVersions interface {
	DataVersion(ctx context.Context, c *answerdesk.Caller, scopes ...string) (int64, error)
}

// signedURLWindow is how long an encoded body holding signed recording URLs is served (and
// its ETag stays the same). A URL is signed for 15 minutes when its body is built, so a body
// served or revalidated within the window hands out URLs with at least 14.5 minutes left.
const signedURLWindow = 30 * time.Second

// scopesKey is the context key of the scopes the request's operation declares.
type scopesKey struct{}

// readSpec is one cacheable customer API read; the scopes it needs are its operation's
// (v2Operations), checked before a cached body is served.
type readSpec struct {
	// window, when set, bounds how long a body is served: it holds signed URLs.
	window time.Duration
	// build runs the read on a miss: the encoded body and, for a list, its Link header.
	build func() (body []byte, link string, err error)
}

// serveRead answers a read from the cache of encoded responses when it can. The key is the
// path and the full (sorted) query, the caller's visible account set and the data version
// of those accounts, read from the database on each request, so a write (by this replica or
// another) makes a new key, and no other account set ever shares an entry. The response
// carries a weak ETag of the key; a matching If-None-Match answers 304.
func (s *Server) serveRead(w http.ResponseWriter, r *http.Request, rd readSpec) {
	if s.Versions == nil {
		body, link, err := rd.build()
		if err != nil {
			s.Error(w, r, err)
			return
		}
		writeEncoded(w, body, link)
		return
	}
	c := caller(r)
	scopes, ok := r.Context().Value(scopesKey{}).([]string)
	if !ok {
		// Fail closed: a read reached without its operation's scopes would skip their check.
		s.Error(w, r, fmt.Errorf("cached read of %s without its operation's scopes", r.URL.Path))
		return
	}
	v, err := s.dataVersion(r, c, scopes)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	now := s.Now()
	var expires time.Time
	key := readKey(r, c, v)
	if rd.window > 0 {
		n := now.UnixNano() / int64(rd.window)
		key += "\x00w=" + strconv.FormatInt(n, 10)
		expires = time.Unix(0, (n+1)*int64(rd.window))
	}
	// On a hit the page carries its tag; the key is hashed only to build one or to answer
	// a conditional request for a body not in the cache.
	p, cached := s.pages.get(key, now)
	etag := ""
	if cached {
		etag = strings.TrimPrefix(p.etag, "W/")
	} else {
		etag = etagOf([]byte(key))
	}
	// A tag the client holds was issued for this very key, so it matches without building
	// the body; "*" matches only a resource that exists (RFC 9110 13.1.2), which the build
	// finds out (a missing or invisible message stays a 404).
	inm := r.Header.Get("If-None-Match")
	match := inm != "" && etagMatches(inm, etag)
	if match && !strings.Contains(inm, "*") {
		w.Header().Set("ETag", "W/"+etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if !cached {
		body, link, err := rd.build()
		if err != nil {
			s.Error(w, r, err)
			return
		}
		p = &cachedPage{key: key, body: body, etag: "W/" + etag, link: link, expires: expires}
		s.pages.put(p)
	}
	w.Header().Set("ETag", p.etag)
	if match { // by "*": the resource exists, since it was built
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeEncoded(w, p.body, p.link)
}

// dataVersion is the data version of c's accounts: the one read with the request's token
// when there is one (the same caller, read in this request, so as fresh), else read now.
// Either way c must hold every scope.
func (s *Server) dataVersion(r *http.Request, c *answerdesk.Caller, scopes []string) (int64, error) {
	if av, ok := r.Context().Value(authVersionKey{}).(authVersion); ok && av.c == c {
		for _, scope := range scopes {
			if err := c.RequireScope(scope); err != nil {
				return 0, err
			}
		}
		return av.v, nil
	}
	return s.Versions.DataVersion(s.pointQueryContext(r.Context()), c, scopes...)
}

// readKey names what a read's body depends on: path, sorted query, visible accounts, version.
func readKey(r *http.Request, c *answerdesk.Caller, version int64) string {
	var b strings.Builder
	b.WriteString(r.URL.Path)
	b.WriteString("?")
	b.WriteString(r.URL.Query().Encode())
	if c.Admin {
		b.WriteString("\x00admin")
	} else {
		ids := slices.Clone(c.AccountIDs)
		slices.Sort(ids)
		b.WriteString("\x00accounts=")
		for i, id := range ids {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(id, 10))
		}
	}
	b.WriteString("\x00v=")
	b.WriteString(strconv.FormatInt(version, 10))
	return b.String()
}

// encodeJSON encodes v as writeJSON does.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	return buf.Bytes(), nil
}

// writeEncoded writes an encoded JSON body with 200 and its Link header, if any.
func writeEncoded(w http.ResponseWriter, body []byte, link string) {
	h := w.Header()
	if link != "" {
		h.Set("Link", link)
	}
	h["Content-Type"] = headerJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))} // known: no chunked framing
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
