package rest

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
	"time"

	"github.com/go-chi/chi/v5"
)

// The site's stylesheet and script, served from the binary at /assets/NAME. Pages link
// them with ?v=<content hash>, so a page always gets the file it was rendered with and
// a browser may keep a versioned file for a year.

//go:embed assets/site.css assets/site.js
var assetFS embed.FS

type assetURLs struct{ CSS, JS string }

type asset struct {
	body        []byte
	contentType string
	version     string
}

var siteAssets = loadAssets()

type assetSet struct {
	byName map[string]asset
	urls   assetURLs
}

func loadAssets() assetSet {
	set := assetSet{byName: map[string]asset{}}
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
	for _, name := range []string{"site.css", "site.js"} {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			panic(err) // the embed directive guarantees the files
		}
		sum := sha256.Sum256(b)
		set.byName[name] = asset{body: b, contentType: types[path.Ext(name)], version: hex.EncodeToString(sum[:6])}
	}
	set.urls = assetURLs{CSS: "/assets/site.css?v=" + set.byName["site.css"].version, JS: "/assets/site.js?v=" + set.byName["site.js"].version}
	return set
}

// asset serves a file of the site's assets; with the current ?v= it may be cached a year.
func (s *Server) asset(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	a, ok := siteAssets.byName[name]
	if !ok {
		s.notFound(w, r, "no asset "+name)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", `"`+a.version+`"`)
	if r.URL.Query().Get("v") == a.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}
