package rest_test

import (
	"io"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/search"
)

// indexedSite loads the site in fsys and builds its search index, closed when the test ends.
func indexedSite(t testing.TB, fsys fs.FS) (*content.Site, *search.Index) {
	t.Helper()
	site, err := content.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	index, err := search.Build(site.Pages)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { index.Close() })
	return site, index
}

// serve starts a test server for srv, with the server's URL as srv's BaseURL (links and
// redirects name it), closed when the test ends.
func serve(t testing.TB, srv *rest.Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(nil)
	srv.BaseURL = ts.URL
	ts.Config.Handler = srv.Handler()
	t.Cleanup(ts.Close)
	return ts
}

// listBody is the customer API's list response: a page of T and its meta.
type listBody[T any] struct {
	Data []T                 `json:"data"`
	Meta answerdesk.PageMeta `json:"meta"`
}

// oneBody is the customer API's response of one T.
type oneBody[T any] struct {
	Data T `json:"data"`
}

// quietLogger drops what the server under test logs.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
