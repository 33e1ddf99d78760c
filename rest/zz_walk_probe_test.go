package rest

import (
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/answerdesk/answerdesk/content"
	"github.com/go-chi/chi/v5"
)

func TestZZWalkProbe(t *testing.T) {
	site, err := content.Load(os.DirFS("../content/testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := content.Load(content.Sandbox())
	h := (&Server{Site: site, Sandbox: sb, Logger: slog.New(slog.DiscardHandler)}).Handler()
	chi.Walk(h.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		t.Log(method, route)
		return nil
	})
	var dump func(rs chi.Routes, pre string)
	dump = func(rs chi.Routes, pre string) {
		for _, r := range rs.Routes() {
			ms := []string{}
			for m := range r.Handlers { ms = append(ms, m) }
			t.Log("R", pre, r.Pattern, ms, r.SubRoutes != nil)
			if r.SubRoutes != nil { dump(r.SubRoutes, pre+r.Pattern) }
		}
	}
	dump(h.(chi.Routes), "")
}
