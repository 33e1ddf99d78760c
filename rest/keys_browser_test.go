package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/browsertest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func apiStatus(t *testing.T, app *testapp.App, token string) int {
	t.Helper()
	return app.Do(t, "GET", "/api/v2/messages", token, nil).Status
}

// TestKeysPageInBrowser signs in, creates a token, uses it, revokes it and sees it refused,
// in headless Chromium.
func TestKeysPageInBrowser(t *testing.T) {
	ctx := browsertest.New(t)
	app := testapp.New(t)
	base := app.Server.URL

	// A page without a session sends the browser to sign in, and back afterwards.
	browsertest.Do(t, ctx, "open the keys page",
		chromedp.Navigate(base+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS("#email")))
	loc, err := url.Parse(browsertest.Run(t, ctx, "location", chromedp.Location()))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != "/login" || loc.Query().Get("return_to") != "/settings/keys" {
		t.Fatalf("without a session: at %s, want /login?return_to=/settings/keys", loc)
	}
	browsertest.FitCheck(t, ctx, "login")

	browsertest.Do(t, ctx, "sign in",
		chromedp.SendKeys(chromedp.CSS("#email"), app.Alice.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), "test-password"),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#name")))
	if loc := browsertest.Run(t, ctx, "location", chromedp.Location()); loc != base+"/settings/keys" {
		t.Fatalf("after sign-in: at %s, want %s/settings/keys", loc, base)
	}

	// Create a token: the page shows it once.
	// A long name without spaces, as people paste URLs: it must not widen the page.
	const name = "CRM https://crm.acme.example/integrations/answerdesk/webhooks"
	browsertest.Do(t, ctx, "create a token",
		chromedp.SetValue(chromedp.CSS("#name"), name), // typing 60 characters takes a second
		chromedp.Click(chromedp.CSS(`form[aria-label="Create a token"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#new-token")))
	token := strings.TrimSpace(browsertest.Run(t, ctx, "read the new token", chromedp.Text(chromedp.CSS("#new-token"))))
	if token == "" {
		t.Fatal("#new-token is empty")
	}
	browsertest.FitCheck(t, ctx, "keys-new-token")
	copyButton(t, ctx, base, token)

	// The token's row, found by its name; the table shows only the token's prefix.
	type row struct {
		ID, Prefix string
	}
	findRow := `(() => {
		const tr = Array.from(document.querySelectorAll('#tokens tr[data-token-id]'))
			.find(tr => tr.querySelector('td[data-label="Name"]').textContent.trim() === ` + fmt.Sprintf("%q", name) + `);
		return tr ? {ID: tr.dataset.tokenId, Prefix: tr.querySelector('td[data-label="Token"] code').textContent} : null;
	})()`
	r := browsertest.Run(t, ctx, "find the token's row", chromedp.Evaluate[*row](findRow))
	if r == nil {
		t.Fatalf("no row named %q in #tokens", name)
	}
	prefix := strings.TrimSuffix(r.Prefix, "…")
	if prefix == "" || prefix == r.Prefix || !strings.HasPrefix(token, prefix) || len(prefix) >= len(token) {
		t.Errorf("row shows %q; want a proper prefix of the token followed by …", r.Prefix)
	}

	// Shown once: opening the page again shows the prefix, never the token. (A plain
	// navigation, not a reload: reloading the answer to the form would post it again.)
	browsertest.Do(t, ctx, "open the keys page again",
		chromedp.Navigate(base+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS("#tokens")))
	html := browsertest.Run(t, ctx, "page HTML", chromedp.OuterHTML(chromedp.CSS("html")))
	if strings.Contains(html, token) || strings.Contains(html, `id="new-token"`) {
		t.Error("the token is shown again after it was created")
	}
	if again := browsertest.Run(t, ctx, "find the token's row again", chromedp.Evaluate[*row](findRow)); again == nil || *again != *r {
		t.Errorf("after reopening, the row is %+v, want %+v", again, r)
	}
	browsertest.FitCheck(t, ctx, "keys")

	if got := apiStatus(t, app, token); got != http.StatusOK {
		t.Fatalf("GET /api/v2/messages with the new token: %d, want 200", got)
	}

	// Revoke it: the row goes, and the API refuses the token.
	rowSel := chromedp.CSS(fmt.Sprintf(`#tokens tr[data-token-id="%s"]`, r.ID))
	browsertest.Do(t, ctx, "revoke the token",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tokens tr[data-token-id="%s"] button`, r.ID))),
		chromedp.WaitNotPresent(rowSel),
		chromedp.WaitVisible(chromedp.CSS("#name")))
	if loc := browsertest.Run(t, ctx, "location", chromedp.Location()); loc != base+"/settings/keys" {
		t.Errorf("after revoking: at %s, want %s/settings/keys", loc, base)
	}
	if got := apiStatus(t, app, token); got != http.StatusUnauthorized {
		t.Errorf("GET /api/v2/messages with the revoked token: %d, want 401", got)
	}
	if got := apiStatus(t, app, app.Alice.Token); got != http.StatusOK {
		t.Errorf("Alice's other token after the revocation: %d, want 200", got)
	}

	// Sign out: back to the sign-in page, and the keys page wants a session again.
	browsertest.Do(t, ctx, "sign out",
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#email")))
	browsertest.Do(t, ctx, "open the keys page signed out",
		chromedp.Navigate(base+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS("#email")))
}

// copyButton clicks Copy and reads the clipboard back. Headless Chromium gives a page the
// clipboard only when allowed to and when the page has focus, so both are arranged first.
func copyButton(t *testing.T, ctx context.Context, origin, token string) {
	t.Helper()
	for _, p := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: p}, Setting: browser.PermissionSettingGranted, Origin: origin,
		}); err != nil {
			t.Fatalf("allow %s: %v", p, err)
		}
	}
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatalf("focus emulation: %v", err)
	}
	if hidden := browsertest.Run(t, ctx, "is Copied hidden", chromedp.Evaluate[bool](`document.getElementById('copied').hidden`)); !hidden {
		t.Error(`"Copied." shows before the button is clicked`)
	}
	browsertest.Do(t, ctx, "click Copy",
		chromedp.Click(chromedp.CSS("#copy")),
		chromedp.WaitVisible(chromedp.CSS("#copied")))
	got := browsertest.Run(t, ctx, "read the clipboard back", chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if got != token {
		t.Errorf("clipboard after Copy: %q, want the token %q", got, token)
	}
}
