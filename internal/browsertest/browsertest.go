// Package browsertest drives Debian's headless Chromium (chromedp) for the tests of web
// pages: the sign-in, consent and application keys pages. "make chromium" installs it.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which "make chromium" installs.
const chromiumPath = "/usr/bin/chromium"

// needChromium returns the browser to drive, or skips the test loudly when there is none.
// Under CI (CI=true) a missing browser fails the test: CI must run it.
func needChromium(t testing.TB) string {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		why := chromiumPath + " not found; run `make chromium` or `apt-get install chromium`"
		if os.Getenv("CI") == "true" {
			t.Fatalf("the browser test cannot run: %s. CI=true, and CI must run it.", why)
		}
		t.Skipf("\n%s\n*** SKIPPING the browser test %s: %s.\n%[1]s", strings.Repeat("*", 100), t.Name(), why)
	}
	return chromiumPath
}

// New starts a headless Chromium with a fresh profile, closed when the test ends. Without
// Chromium the test is skipped loudly, or fails when CI=true.
func New(t testing.TB) context.Context {
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

// Do runs browser steps, failing the test with what was being done.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Run runs one browser action that returns a value.
func Run[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// FitCheck shows the page on a phone (390 CSS pixels wide) and on a laptop (1280), saves a
// screenshot of the phone's, and fails when the page is wider than the screen, so that it
// would scroll sideways.
func FitCheck(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	defer Do(t, ctx, "reset viewport", chromedp.EmulateReset())
	for _, width := range []int64{390, 1280} {
		mobile := width < 600
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if mobile {
			opts = []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateScale(1)}
		}
		Do(t, ctx, "set the viewport", chromedp.EmulateViewport(width, 844, opts...))
		if mobile {
			Screenshot(t, ctx, fmt.Sprintf("%s-%d", name, width), true)
		}
		Fits(t, ctx, name, width)
	}
}

// Screenshot saves a screenshot of the page (the whole page, or what the screen shows) as
// name.png in $ANSWERDESK_SCREENSHOTS (kept, e.g. to look at a change), else in a
// directory removed with the test.
func Screenshot(t testing.TB, ctx context.Context, name string, whole bool) {
	t.Helper()
	a := chromedp.CaptureScreenshot()
	if whole {
		a = chromedp.FullScreenshot(100)
	}
	png := Run(t, ctx, "screenshot", a)
	dir := os.Getenv("ANSWERDESK_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// Fits fails when the page is wider than the viewport's width, so that it would scroll
// sideways, naming the elements that reach past it.
func Fits(t testing.TB, ctx context.Context, name string, width int64) {
	t.Helper()
	// Compared with the viewport's width, not window.innerWidth: on a mobile viewport
	// Chromium zooms out to fit content that is too wide, and innerWidth grows with it.
	scroll := Run(t, ctx, "measure width", chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
	if scroll > width {
		wide := Run(t, ctx, "find wide elements", chromedp.Evaluate[[]string](fmt.Sprintf(`Array.from(document.querySelectorAll('body *'))
			.filter(e => e.getBoundingClientRect().right > %d)
			.map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + e.className : '') + ' (right edge ' + Math.round(e.getBoundingClientRect().right) + 'px)')`, width)))
		t.Errorf("%s at %dpx: the page is %dpx wide, so it scrolls sideways; too wide: %v", name, width, scroll, wide)
	}
}

// axePath is where "make axe" puts axe-core, relative to the module's root.
const axePath = "bin/tools/axe-core/axe.min.js"

// axeScript reads axe-core, or skips the test loudly when it is missing (fails when CI=true).
func axeScript(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	b, err := os.ReadFile(filepath.Join(dir, axePath))
	if err != nil {
		why := axePath + " not found; run `make axe`"
		if os.Getenv("CI") == "true" {
			t.Fatalf("the accessibility check cannot run: %s. CI=true, and CI must run it.", why)
		}
		t.Skipf("\n%s\n*** SKIPPING the accessibility check of %s: %s.\n%[1]s", strings.Repeat("*", 100), t.Name(), why)
	}
	return string(b)
}

// AxeViolation is a rule of axe-core the page breaks, with the elements that break it.
type AxeViolation struct {
	ID, Impact, Help string
	Targets          []string
}

// Axe runs axe-core (WCAG 2.1 A and AA rules and best practices) on the page in the
// browser and fails the test on every serious or critical violation; minor and moderate
// ones are logged.
func Axe(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	script := axeScript(t)
	Do(t, ctx, "inject axe-core", chromedp.Evaluate[chromedp.Void](script))
	found := Run(t, ctx, "run axe-core", chromedp.Evaluate[[]AxeViolation](`axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})
		.then(r => r.violations.map(v => ({ID: v.id, Impact: v.impact || '', Help: v.help, Targets: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`,
		chromedp.EvalAwaitPromise))
	for _, v := range found {
		msg := fmt.Sprintf("%s: axe %s (%s): %s: %v", name, v.ID, v.Impact, v.Help, v.Targets)
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}
