package oauth_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/answerdesk/answerdesk/internal/testapp"
)

// TestCodeIssuedBeforeDisableNeverWorks: a code approved before the user was disabled cannot
// be exchanged once the user is enabled again, and a refresh token issued before the disable
// stays dead; a code approved after the user is enabled again works.
func TestCodeIssuedBeforeDisableNeverWorks(t *testing.T) {
	app := testapp.New(t)
	cfg := publicClient(t, app, "messages:read")
	ctx := context.Background()
	old := tokenFor(t, app, cfg, app.Alice.Email)
	verifier := oauth2.GenerateVerifier()
	code := authorize(t, newBrowser(t, app), cfg, verifier, app.Alice.Email)

	setDisabled := func(disabled bool) {
		t.Helper()
		r := app.Do(t, "PATCH", fmt.Sprintf("/api/v2/users/%d", app.Alice.ID), app.Admin.Token, fmt.Sprintf(`{"disabled":%v}`, disabled))
		if r.Status != 200 {
			t.Fatalf("disabled=%v: %d %s", disabled, r.Status, r.Body)
		}
	}
	setDisabled(true)
	app.Clock.Advance(time.Second)
	setDisabled(false)

	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier)); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("a code approved before the disable was exchanged after the enable: %v", err)
	}
	if _, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: old.RefreshToken}).Token(); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("a refresh token issued before the disable worked after the enable: %v", err)
	}
	app.Clock.Advance(time.Second)
	if tok := tokenFor(t, app, cfg, app.Alice.Email); tok.AccessToken == "" {
		t.Fatal("a code approved after the enable gave no token")
	}
}
