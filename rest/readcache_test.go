package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// getIf sends a GET with an optional If-None-Match.
func getIf(t *testing.T, app *testapp.App, path, token, ifNoneMatch string) *testapp.Response {
	t.Helper()
	var h http.Header
	if ifNoneMatch != "" {
		h = http.Header{"If-None-Match": {ifNoneMatch}}
	}
	return app.DoWith(t, http.MethodGet, path, token, nil, h)
}

// weakETag returns the response's ETag, failing unless it is a weak one on a 200.
func weakETag(t *testing.T, r *testapp.Response) string {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	e := r.Header.Get("ETag")
	if !strings.HasPrefix(e, `W/"`) {
		t.Fatalf("ETag %q is not a weak entity tag", e)
	}
	return e
}

// TestReadCacheConditional: message and recording reads carry a weak ETag; If-None-Match
// with it (weak or strong form) answers 304 without a body, and a stale one gets the body.
func TestReadCacheConditional(t *testing.T) {
	app := testapp.New(t)
	m := app.CreateMessage(t, app.Alice, day(1), map[string]any{"content": "hello"})
	app.CreateCall(t, app.Alice, app.Acme, day(2), "Sales", true)
	for _, path := range []string{
		"/api/v2/messages?page_size=5",
		"/api/v2/messages/recents",
		fmt.Sprintf("/api/v2/messages/%d", m.ID),
		"/api/v2/messages/" + m.UUID,
		"/api/v2/call-recordings",
	} {
		t.Run(path, func(t *testing.T) {
			first := getIf(t, app, path, app.Alice.Token, "")
			e := weakETag(t, first)
			again := getIf(t, app, path, app.Alice.Token, "")
			if weakETag(t, again) != e || string(again.Body) != string(first.Body) {
				t.Fatalf("a repeat changed: %s %s", e, again.Header.Get("ETag"))
			}
			for _, inm := range []string{e, strings.TrimPrefix(e, "W/"), `"other", ` + e, "*"} {
				r := getIf(t, app, path, app.Alice.Token, inm)
				if r.Status != http.StatusNotModified || len(r.Body) != 0 || r.Header.Get("ETag") != e {
					t.Fatalf("If-None-Match %s: %d %q ETag %q, want 304 without body", inm, r.Status, r.Body, r.Header.Get("ETag"))
				}
			}
			if r := getIf(t, app, path, app.Alice.Token, `W/"stale"`); r.Status != 200 || string(r.Body) != string(first.Body) {
				t.Fatalf("stale If-None-Match: %d", r.Status)
			}
		})
	}
	// "*" matches a message that exists, never one that does not or that the caller cannot
	// see: those stay 404.
	for _, who := range []struct {
		token, path string
	}{{app.Alice.Token, "/api/v2/messages/999999"}, {app.Bob.Token, fmt.Sprintf("/api/v2/messages/%d", m.ID)}} {
		if r := getIf(t, app, who.path, who.token, "*"); r.Status != http.StatusNotFound {
			t.Errorf("If-None-Match * on %s: %d, want 404", who.path, r.Status)
		}
	}
}

// TestReadCacheInvalidation: every write that changes what a read returns changes its
// ETag and body at once (the data version is bumped in the write's transaction).
func TestReadCacheInvalidation(t *testing.T) {
	app := testapp.New(t)
	m := app.CreateMessage(t, app.Alice, day(1), map[string]any{"content": "hello"})
	const list = "/api/v2/messages?page_size=5"
	byID := fmt.Sprintf("/api/v2/messages/%d", m.ID)
	patch := func(action string) func() {
		return func() {
			if r := app.Do(t, "PATCH", byID+"/"+action, app.Alice.Token, nil); r.Status != 200 {
				t.Fatalf("%s: %d %s", action, r.Status, r.Body)
			}
		}
	}
	for _, step := range []struct {
		name  string
		write func()
		want  string // in the list body afterwards
	}{
		{"create", func() { app.CreateMessage(t, app.Alice, day(0), map[string]any{"content": "second one"}) }, "second one"},
		{"mark-as-read", patch("mark-as-read"), `"read":true`},
		{"mark-as-unread", patch("mark-as-unread"), `"read":false`},
		{"acknowledge", patch("acknowledge"), `"status":"acknowledged"`},
	} {
		before := weakETag(t, getIf(t, app, list, app.Alice.Token, ""))
		beforeOne := weakETag(t, getIf(t, app, byID, app.Alice.Token, ""))
		step.write()
		after := getIf(t, app, list, app.Alice.Token, before)
		if after.Status != 200 || weakETag(t, after) == before {
			t.Fatalf("%s: list still %d with ETag %s", step.name, after.Status, before)
		}
		if !strings.Contains(string(after.Body), step.want) {
			t.Fatalf("%s: list body lacks %s: %s", step.name, step.want, after.Body)
		}
		if one := getIf(t, app, byID, app.Alice.Token, beforeOne); one.Status != 200 && step.name != "create" {
			t.Fatalf("%s: message by id still 304", step.name)
		}
	}
}

// TestReadCacheIsPerAccountSet: a page cached for one account set is never served to a
// caller of another, even with the same URL or the other caller's ETag.
func TestReadCacheIsPerAccountSet(t *testing.T) {
	app := testapp.New(t)
	app.CreateMessage(t, app.Alice, day(1), map[string]any{"content": "acme secret"})
	app.CreateMessage(t, app.Bob, day(1), map[string]any{"content": "birch note"})
	both := app.NewUser(t, "carol@example.com", false, "1001", "1002")
	const list = "/api/v2/messages"
	alice := getIf(t, app, list, app.Alice.Token, "")
	aliceTag := weakETag(t, alice)
	bob := getIf(t, app, list, app.Bob.Token, aliceTag)
	if bob.Status != 200 || weakETag(t, bob) == aliceTag {
		t.Fatalf("Bob with Alice's ETag: %d, ETag %s", bob.Status, bob.Header.Get("ETag"))
	}
	if strings.Contains(string(bob.Body), "acme secret") || !strings.Contains(string(bob.Body), "birch note") {
		t.Fatalf("Bob's page: %s", bob.Body)
	}
	carol := getIf(t, app, list, both.Token, "")
	if !strings.Contains(string(carol.Body), "acme secret") || !strings.Contains(string(carol.Body), "birch note") {
		t.Fatalf("a member of both sees %s", carol.Body)
	}
	admin := getIf(t, app, list, app.Admin.Token, aliceTag)
	if admin.Status != 200 || !strings.Contains(string(admin.Body), "birch note") {
		t.Fatalf("admin: %d %s", admin.Status, admin.Body)
	}
	// A cached page needs the scope all the same.
	if r := getIf(t, app, list, app.Alice.Token, ""); r.Status != 200 {
		t.Fatal(r.Status)
	}
	app.Rest.Tokens = &narrowTokens{TokenService: app.Rest.Tokens, scopes: []string{answerdesk.ScopeRecordingsRead}}
	for _, inm := range []string{"", aliceTag} {
		if r := getIf(t, app, list, app.Alice.Token, inm); r.Status != http.StatusForbidden {
			t.Fatalf("without messages:read (If-None-Match %q): %d %s", inm, r.Status, r.Body)
		}
	}
}

// TestReadCacheRecordings: signed audio URLs in a cached body are renewed each window, so a
// served URL always has nearly its 15 minutes left, and the audio's expiry (recording
// becoming null) is seen at once.
func TestReadCacheRecordings(t *testing.T) {
	app := testapp.New(t)
	rec, _ := app.CreateCall(t, app.Alice, app.Acme, testapp.Start.Add(-40*24*time.Hour), "Sales", true)
	paths := []string{"/api/v2/call-recordings", fmt.Sprintf("/api/v2/call-recordings/%d", rec.ID)}
	tags := map[string]string{}
	for _, p := range paths {
		r := getIf(t, app, p, app.Alice.Token, "")
		tags[p] = weakETag(t, r)
		want := fmt.Sprintf("expires=%d", app.Clock.Now().Add(15*time.Minute).Unix())
		if !strings.Contains(string(r.Body), want) {
			t.Fatalf("%s: URL does not expire 15 minutes from now (%s): %s", p, want, r.Body)
		}
	}
	app.Clock.Advance(time.Minute)
	for _, p := range paths {
		r := getIf(t, app, p, app.Alice.Token, tags[p])
		if r.Status != 200 || weakETag(t, r) == tags[p] {
			t.Fatalf("%s a minute later: %d, same ETag", p, r.Status)
		}
		want := fmt.Sprintf("expires=%d", app.Clock.Now().Add(15*time.Minute).Unix())
		if !strings.Contains(string(r.Body), want) {
			t.Fatalf("%s a minute later: a cached URL was served, want %s: %s", p, want, r.Body)
		}
		tags[p] = weakETag(t, r)
	}
	if _, _, err := app.Recordings.PurgeRecordings(context.Background(), testapp.Start.Add(-31*24*time.Hour), testapp.Start.Add(-3*365*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		r := getIf(t, app, p, app.Alice.Token, tags[p])
		if r.Status != 200 || !strings.Contains(string(r.Body), `"recording":null`) {
			t.Fatalf("%s after the audio expired: %d %s", p, r.Status, r.Body)
		}
	}
}
