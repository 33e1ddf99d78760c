package rest_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// BenchmarkPerRequest measures what every customer API read pays besides its body, as the
// server pays it: a cancellable request context (as net/http gives), the access log as JSON
// to a file (/dev/null here: the formatting and the write syscall), the token lookup and
// the data version. by_id is a cached GET /api/v2/messages/{id}; not_modified a 304.
func BenchmarkPerRequest(b *testing.B) {
	app := testapp.New(b)
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { devNull.Close() })
	app.Rest.Logger = slog.New(answerdesk.NewLogHandler(slog.NewJSONHandler(devNull, nil)))
	h := app.Rest.Handler()
	m := app.CreateMessage(b, app.Alice, testapp.Start, map[string]any{})
	get := func(path, etag string) *http.Request {
		req := benchGet(path, app.Alice.Token, etag)
		ctx, cancel := context.WithCancel(context.Background())
		b.Cleanup(cancel)
		return req.WithContext(ctx)
	}
	byID := get(fmt.Sprintf("/api/v2/messages/%d", m.ID), "")
	first := httptest.NewRecorder()
	h.ServeHTTP(first, byID)
	if first.Code != http.StatusOK {
		b.Fatalf("status %d: %s", first.Code, first.Body)
	}
	for _, bc := range []struct {
		name string
		req  *http.Request
		want int
	}{
		{"by_id", byID, http.StatusOK},
		{"not_modified", get(fmt.Sprintf("/api/v2/messages/%d", m.ID), first.Header().Get("ETag")), http.StatusNotModified},
	} {
		b.Run(bc.name, func(b *testing.B) { serveLoop(b, h, bc.want, func() *http.Request { return bc.req }) })
	}
}
