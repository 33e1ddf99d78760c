package rest_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testapp"
)

// TestIDSpellings holds every {id} in a path and the account_id filter to the documents'
// pattern ^[0-9]+$: another spelling of an existing id is not that thing. Before, "+5"
// reached the same row as "5".
func TestIDSpellings(t *testing.T) {
	app := testapp.New(t)
	rec, msg := app.CreateCall(t, app.Alice, app.Acme, time.Now().Add(-time.Hour), "Acme Plumbing - Main", true)
	td := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","times":["10:30"]}}`)
	for _, p := range []struct {
		before string
		id     int64
		after  string
	}{
		{"/api/v2/messages/", msg.ID, ""},
		{"/api/v2/messages/", msg.ID, "/call-recording"},
		{"/api/v2/call-recordings/", rec.ID, ""},
		{"/api/v2/to-dos/", td.ID, ""},
	} {
		path := fmt.Sprint(p.before, p.id, p.after)
		if r := app.Do(t, http.MethodGet, path, app.Alice.Token, nil); r.Status != http.StatusOK {
			t.Fatalf("GET %s: %d, want 200 (the canonical id must work)", path, r.Status)
		}
		for _, sign := range []string{"+", "%2B", "-", "%20"} {
			bad := fmt.Sprint(p.before, sign, p.id, p.after)
			wantError(t, app.Do(t, http.MethodGet, bad, app.Alice.Token, nil), http.StatusNotFound, "not_found")
		}
	}
	wantError(t, app.Do(t, http.MethodGet, fmt.Sprintf("/api/v2/call-recordings?account_id=%%2B%d", app.Acme.ID), app.Alice.Token, nil),
		http.StatusUnprocessableEntity, "invalid_parameter", "account_id")
}
