package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which "make chromium" installs.
const chromiumPath = "/usr/bin/chromium"

// needChromium returns the browser to drive, or skips the test loudly when there is none.
// Under CI (CI=true) a missing browser fails the test: CI must run it.
func needChromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		why := chromiumPath + " not found; run `make chromium` or `apt-get install chromium`"
		if os.Getenv("CI") == "true" {
			t.Fatalf("the browser test cannot run: %s. CI=true, and CI must run it.", why)
		}
		t.Skipf("\n%s\n*** SKIPPING the browser test of the keys page: %s.\n%[1]s", strings.Repeat("*", 100), why)
	}
	return chromiumPath
}

// newBrowser starts a headless Chromium with a fresh profile, closed when the test ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	bin := needChromium(t)
	profile := t.TempDir() // made before the cleanups below, so removed after the browser exits
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests may run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// Without these Chromium keeps calling home, which hangs on a closed network.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(ctx)
	t.Cleanup(cancelTab)
	return ctx
}

// do runs browser steps, failing the test with what was being done.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// run runs one browser action that returns a value.
func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// fitCheck shows the page on a phone (390 CSS pixels wide) and on a laptop (1280), saves a
// screenshot of the phone's, and fails when the page is wider than the screen, so that it
// would scroll sideways.
func fitCheck(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	defer do(t, ctx, "reset viewport", chromedp.EmulateReset())
	for _, width := range []int64{390, 1280} {
		mobile := width < 600
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if mobile {
			opts = []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateScale(1)}
		}
		do(t, ctx, "set the viewport", chromedp.EmulateViewport(width, 844, opts...))
		if mobile {
			png := run(t, ctx, "screenshot", chromedp.FullScreenshot(100))
			dir := os.Getenv("ANSWERDESK_SCREENSHOTS") // keep them, e.g. to look at a change
			if dir == "" {
				dir = t.TempDir()
			}
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, width))
			if err := os.WriteFile(path, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s", path)
		}
		// Compared with the viewport's width, not window.innerWidth: on a mobile viewport
		// Chromium zooms out to fit content that is too wide, and innerWidth grows with it.
		scroll := run(t, ctx, "measure width", chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
		if scroll > width {
			wide := run(t, ctx, "find wide elements", chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll('body *'))
				.filter(e => e.getBoundingClientRect().right > %d)
				.map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : '') + ' (right edge ' + Math.round(e.getBoundingClientRect().right) + 'px)')`, width)))
			t.Errorf("%s at %dpx: the page is %dpx wide, so it scrolls sideways; too wide: %v", name, width, scroll, wide)
		}
	}
}

func apiStatus(t *testing.T, app *testapp.App, token string) int {
	t.Helper()
	return app.Do(t, "GET", "/api/v2/messages", token, nil).Status
}

// TestKeysPageInBrowser signs in, creates a token, uses it, revokes it and sees it refused,
// in headless Chromium.
func TestKeysPageInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	app := testapp.New(t)
	base := app.Server.URL

	// A page without a session sends the browser to sign in, and back afterwards.
	do(t, ctx, "open the keys page",
		chromedp.Navigate(base+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS("#email")))
	loc, err := url.Parse(run(t, ctx, "location", chromedp.Location()))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Path != "/login" || loc.Query().Get("return_to") != "/settings/keys" {
		t.Fatalf("without a session: at %s, want /login?return_to=/settings/keys", loc)
	}
	fitCheck(t, ctx, "login")

	do(t, ctx, "sign in",
		chromedp.SendKeys(chromedp.CSS("#email"), app.Alice.Email),
		chromedp.SendKeys(chromedp.CSS("#password"), "test-password"),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#name")))
	if loc := run(t, ctx, "location", chromedp.Location()); loc != base+"/settings/keys" {
		t.Fatalf("after sign-in: at %s, want %s/settings/keys", loc, base)
	}

	// Create a token: the page shows it once.
	// A long name without spaces, as people paste URLs: it must not widen the page.
	const name = "CRM https://crm.acme.example/integrations/answerdesk/webhooks"
	do(t, ctx, "create a token",
		chromedp.SetValue(chromedp.CSS("#name"), name), // typing 60 characters takes a second
		chromedp.Click(chromedp.CSS(`form[aria-label="Create a token"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#new-token")))
	token := strings.TrimSpace(run(t, ctx, "read the new token", chromedp.Text(chromedp.CSS("#new-token"))))
	if token == "" {
		t.Fatal("#new-token is empty")
	}
	fitCheck(t, ctx, "keys-new-token")
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
	r := run(t, ctx, "find the token's row", chromedp.Evaluate[*row](findRow))
	if r == nil {
		t.Fatalf("no row named %q in #tokens", name)
	}
	prefix := strings.TrimSuffix(r.Prefix, "…")
	if prefix == "" || prefix == r.Prefix || !strings.HasPrefix(token, prefix) || len(prefix) >= len(token) {
		t.Errorf("row shows %q; want a proper prefix of the token followed by …", r.Prefix)
	}

	// Shown once: opening the page again shows the prefix, never the token. (A plain
	// navigation, not a reload: reloading the answer to the form would post it again.)
	do(t, ctx, "open the keys page again",
		chromedp.Navigate(base+"/settings/keys"),
		chromedp.WaitVisible(chromedp.CSS("#tokens")))
	html := run(t, ctx, "page HTML", chromedp.OuterHTML(chromedp.CSS("html")))
	if strings.Contains(html, token) || strings.Contains(html, `id="new-token"`) {
		t.Error("the token is shown again after it was created")
	}
	if again := run(t, ctx, "find the token's row again", chromedp.Evaluate[*row](findRow)); again == nil || *again != *r {
		t.Errorf("after reopening, the row is %+v, want %+v", again, r)
	}
	fitCheck(t, ctx, "keys")

	if got := apiStatus(t, app, token); got != http.StatusOK {
		t.Fatalf("GET /api/v2/messages with the new token: %d, want 200", got)
	}

	// Revoke it: the row goes, and the API refuses the token.
	rowSel := chromedp.CSS(fmt.Sprintf(`#tokens tr[data-token-id="%s"]`, r.ID))
	do(t, ctx, "revoke the token",
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tokens tr[data-token-id="%s"] button`, r.ID))),
		chromedp.WaitNotPresent(rowSel),
		chromedp.WaitVisible(chromedp.CSS("#name")))
	if loc := run(t, ctx, "location", chromedp.Location()); loc != base+"/settings/keys" {
		t.Errorf("after revoking: at %s, want %s/settings/keys", loc, base)
	}
	if got := apiStatus(t, app, token); got != http.StatusUnauthorized {
		t.Errorf("GET /api/v2/messages with the revoked token: %d, want 401", got)
	}
	if got := apiStatus(t, app, app.Alice.Token); got != http.StatusOK {
		t.Errorf("Alice's other token after the revocation: %d, want 200", got)
	}

	// Sign out: back to the sign-in page, and the keys page wants a session again.
	do(t, ctx, "sign out",
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#email")))
	do(t, ctx, "open the keys page signed out",
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
	if hidden := run(t, ctx, "is Copied hidden", chromedp.Evaluate[bool](`document.getElementById('copied').hidden`)); !hidden {
		t.Error(`"Copied." shows before the button is clicked`)
	}
	do(t, ctx, "click Copy",
		chromedp.Click(chromedp.CSS("#copy")),
		chromedp.WaitVisible(chromedp.CSS("#copied")))
	got := run(t, ctx, "read the clipboard back", chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if got != token {
		t.Errorf("clipboard after Copy: %q, want the token %q", got, token)
	}
}
