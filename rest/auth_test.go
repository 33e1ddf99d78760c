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
	"github.com/answerdesk/answerdesk/store"
)

func TestBearerAuth(t *testing.T) {
	app := testapp.New(t)
	tokens := store.NewTokenService(app.DB)
	revoked, plainRevoked, err := tokens.CreateToken(context.Background(), app.Alice.ID, "old")
	if err != nil {
		t.Fatal(err)
	}
	if err := tokens.RevokeToken(context.Background(), app.Alice.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	// Each case's Authorization headers, in order. Two headers are ambiguous credentials:
	// neither is taken, even when both name a valid token (a proxy that adds its own must
	// not decide whose request it is).
	cases := map[string][]string{
		"missing":                 nil,
		"malformed":               {"Bearer not-a-token"},
		"wrong_scheme":            {"Basic " + app.Alice.Token},
		"unknown":                 {"Bearer " + answerdesk.NewTokenValue()},
		"revoked":                 {"Bearer " + plainRevoked},
		"truncated":               {"Bearer " + app.Alice.Token[:20]},
		"extra_characters":        {"Bearer " + app.Alice.Token + "x"},
		"two_headers_valid_first": {"Bearer " + app.Alice.Token, "Bearer " + app.Bob.Token},
		"two_headers_same":        {"Bearer " + app.Alice.Token, "Bearer " + app.Alice.Token},
	}
	for name, headers := range cases {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", app.Server.URL+"/api/v2/messages", nil)
			for _, h := range headers {
				req.Header.Add("Authorization", h)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	t.Run("scheme_is_case_insensitive", func(t *testing.T) {
		req, _ := http.NewRequest("GET", app.Server.URL+"/api/v2/messages", nil)
		req.Header.Set("Authorization", "bearer "+app.Alice.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	t.Run("records_last_used", func(t *testing.T) {
		list := func() *answerdesk.Token {
			ts, err := tokens.ListTokens(context.Background(), app.Bob.ID)
			if err != nil || len(ts) != 1 {
				t.Fatalf("tokens %v %v", ts, err)
			}
			return ts[0]
		}
		if list().LastUsedAt != nil {
			t.Fatal("unused token has last_used_at")
		}
		app.Do(t, "GET", "/api/v2/messages", app.Bob.Token, nil)
		first := list().LastUsedAt
		if first == nil || !first.Equal(app.Clock.Now()) {
			t.Fatalf("last_used_at %v, want %v", first, app.Clock.Now())
		}
		app.Clock.Advance(2 * time.Minute)
		app.Do(t, "GET", "/api/v2/messages", app.Bob.Token, nil)
		if got := list().LastUsedAt; !got.Equal(app.Clock.Now()) {
			t.Fatalf("last_used_at not updated: %v", got)
		}
	})
	t.Run("stored_hashed", func(t *testing.T) {
		ts, _ := tokens.ListTokens(context.Background(), 0)
		for _, tk := range ts {
			if strings.Contains(fmt.Sprint(tk), app.Alice.Token) {
				t.Fatal("plain token visible in listing")
			}
			if len(tk.Prefix) != 9 || !strings.HasPrefix(tk.Prefix, "ak_") {
				t.Fatalf("prefix %q", tk.Prefix)
			}
		}
		if !answerdesk.ValidTokenFormat(app.Alice.Token) || len(app.Alice.Token) != 46 {
			t.Fatalf("token %q has the wrong format", app.Alice.Token)
		}
	})
}

// TestVisibility asserts every customer API endpoint hides other accounts' resources as 404.
func TestVisibility(t *testing.T) {
	app := testapp.New(t)
	rec, msg := app.CreateCall(t, app.Bob, app.Birch, day(1), "Birch - Main", true)
	endpoints := []struct{ method, path string }{
		{"GET", fmt.Sprintf("/api/v2/messages/%d", msg.ID)},
		{"GET", "/api/v2/messages/" + msg.UUID},
		{"GET", fmt.Sprintf("/api/v2/messages/%d/call-recording", msg.ID)},
		{"PATCH", fmt.Sprintf("/api/v2/messages/%d/acknowledge", msg.ID)},
		{"PATCH", fmt.Sprintf("/api/v2/messages/%d/mark-as-read", msg.ID)},
		{"PATCH", fmt.Sprintf("/api/v2/messages/%d/mark-as-unread", msg.ID)},
		{"GET", fmt.Sprintf("/api/v2/call-recordings/%d", rec.ID)},
	}
	for _, e := range endpoints {
		t.Run(e.method+e.path, func(t *testing.T) {
			wantError(t, app.Do(t, e.method, e.path, app.Alice.Token, nil), 404, "not_found")
			if r := app.Do(t, e.method, e.path, app.Bob.Token, nil); r.Status != 200 {
				t.Fatalf("owner got %d", r.Status)
			}
			if r := app.Do(t, e.method, e.path, app.Admin.Token, nil); r.Status != 200 {
				t.Fatalf("admin got %d", r.Status)
			}
		})
	}
	t.Run("patch_changed_nothing_for_outsider", func(t *testing.T) {
		fresh := app.CreateMessage(t, app.Bob, day(0), map[string]any{})
		app.Do(t, "PATCH", fmt.Sprintf("/api/v2/messages/%d/acknowledge", fresh.ID), app.Alice.Token, nil)
		app.Do(t, "PATCH", fmt.Sprintf("/api/v2/messages/%d/mark-as-read", fresh.ID), app.Alice.Token, nil)
		var got struct{ Data answerdesk.Message }
		app.Do(t, "GET", fmt.Sprintf("/api/v2/messages/%d", fresh.ID), app.Bob.Token, nil).JSON(t, &got)
		if got.Data.Status != "new" || got.Data.Read {
			t.Fatalf("outsider changed the message: %+v", got.Data)
		}
	})
	t.Run("lists", func(t *testing.T) {
		for _, p := range []string{"/api/v2/messages", "/api/v2/messages/recents", "/api/v2/call-recordings", "/api/v2/call-recordings?sample=true"} {
			var l struct{ Data []map[string]any }
			app.Do(t, "GET", p, app.Alice.Token, nil).JSON(t, &l)
			if len(l.Data) != 0 {
				t.Fatalf("%s shows alice %d of bob's items", p, len(l.Data))
			}
		}
	})
}

func TestRoutingErrors(t *testing.T) {
	app := testapp.New(t)
	wantError(t, app.Do(t, "GET", "/api/v2/nothing-here", app.Alice.Token, nil), 404, "rest_no_route")
	wantError(t, app.Do(t, "GET", "/no/such/page", "", nil), 404, "rest_no_route")
	r := app.Do(t, "DELETE", "/api/v2/messages", app.Alice.Token, nil)
	wantError(t, r, 405, "method_not_allowed")
	if r.Header.Get("Allow") != "GET, POST" {
		t.Fatalf("Allow %q", r.Header.Get("Allow"))
	}
	if r.Header.Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id")
	}
	if r := app.Do(t, "HEAD", "/api/v2/messages", app.Alice.Token, nil); r.Status != 200 || len(r.Body) != 0 {
		t.Fatalf("HEAD: %d, %d body bytes", r.Status, len(r.Body))
	}
}

func TestHealth(t *testing.T) {
	app := testapp.New(t)
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := app.Do(t, "GET", p, "", nil); r.Status != 200 {
			t.Fatalf("%s: %d %s", p, r.Status, r.Body)
		}
	}
	app.Do(t, "GET", "/api/v2/messages", app.Alice.Token, nil)
	r := app.Do(t, "GET", "/metrics", "", nil)
	body := string(r.Body)
	if r.Status != 200 || !strings.Contains(body, `answerdesk_http_requests_total{method="GET",route="/api/v2/messages",status="200"} 1`) ||
		!strings.Contains(body, `answerdesk_http_request_duration_seconds_bucket{method="GET",route="/api/v2/messages"`) {
		t.Fatalf("metrics missing the request: %d\n%s", r.Status, body)
	}
	app.DB.Close()
	r = app.Do(t, "GET", "/readyz", "", nil)
	if r.Status != 503 {
		t.Fatalf("readyz with a closed database: %d", r.Status)
	}
	// /readyz is open to anyone: the reason is in the log, not in the answer, which would
	// otherwise show driver errors (PostgreSQL's name the host, user and database).
	var ready map[string]string
	if r.JSON(t, &ready); ready["status"] != "unavailable" || ready["error"] == "" || strings.Contains(ready["error"], "sql") {
		t.Errorf("readyz with a closed database answered %s, want the status and a reason that is not the driver's error", r.Body)
	}
}
