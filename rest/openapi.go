package rest

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"strings"
)

//go:embed openapi/v2.json
var openAPIV2 []byte

func serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPIV2)
}

// openAPIV1 is the OpenAPI 3.1 document of the public API v1 (and its sandbox).
//
//go:embed openapi/v1.json
var openAPIV1 []byte

// openAPIV1ETag is the document's entity tag, made like the public API's other ETags.
var openAPIV1ETag = etagOf(openAPIV1)

// etagOf is the strong entity tag of a response body.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// serveOpenAPIV1 serves the public API's OpenAPI document (GET /api/v1/openapi.json): no
// credentials, cacheable like every public read (ETag, Cache-Control), and 304 to a
// matching If-None-Match.
func serveOpenAPIV1(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("ETag", openAPIV1ETag)
	h.Set("Cache-Control", "public, max-age=300")
	if etagMatches(r.Header.Get("If-None-Match"), openAPIV1ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIV1)
}

// etagMatches reports whether an If-None-Match header names etag (weakly compared) or is *.
func etagMatches(ifNoneMatch, etag string) bool {
	for _, m := range strings.Split(ifNoneMatch, ",") {
		m = strings.TrimSpace(m)
		if m == etag || m == "W/"+etag || m == "*" {
			return true
		}
	}
	return false
}
