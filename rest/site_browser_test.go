package rest_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk/internal/browsertest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestSiteInBrowser drives the site as a person does, in headless Chromium at a laptop's
// width and a phone's: the home page, a docs page with its sidebar, table of contents and
// previous/next, the search box (type, choose a result with the keyboard, land on it), the
// "Ask the docs" box (ask, follow a source; a question the docs do not cover), and copy as
// Markdown. Every page is checked with axe-core, and screenshots are kept in
// $ANSWERDESK_SCREENSHOTS when it is set.
func TestSiteInBrowser(t *testing.T) {
	if testdb.Engine() != testdb.SQLite {
		t.Skip("the site's pages and answers read nothing of the database: make test runs this once, in its SQLite pass")
	}
	app := testapp.NewPublic(t)
	base := app.Server.URL
	for _, width := range []int64{1280, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := browsertest.New(t)
			opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
			if width < 600 {
				opts = append(opts, chromedp.EmulateMobile)
			}
			browsertest.Do(t, ctx, "set the viewport", chromedp.EmulateViewport(width, 900, opts...))
			siteHome(t, ctx, base, width)
			siteDocsPage(t, ctx, base, width)
			siteSearch(t, ctx, base, width)
			siteAsk(t, ctx, base, width)
			siteOtherPages(t, ctx, base, width)
		})
	}
	t.Run("without_javascript", func(t *testing.T) { siteWithoutScript(t, base) })
	t.Run("dark", func(t *testing.T) { siteDark(t, base) })
}

// siteDark checks the pages' dark colours (prefers-color-scheme: dark) with axe-core, whose
// contrast rules are among the serious ones.
func siteDark(t *testing.T, base string) {
	ctx := browsertest.New(t)
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatalf("emulate dark mode: %v", err)
	}
	for _, path := range []string{"/", "/docs/pagination", "/ask?q=What+is+the+default+page_size%3F", "/search?q=escalation"} {
		browsertest.Do(t, ctx, "open "+path, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main h1, main form")))
		if bg := browsertest.Run(t, ctx, "background", chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`)); bg != "rgb(18, 21, 28)" {
			t.Fatalf("%s: background %s, not the dark one", path, bg)
		}
		browsertest.Axe(t, ctx, path+" (dark)")
		if path == "/docs/pagination" {
			browsertest.Screenshot(t, ctx, "site-docs-dark-1280", false)
		}
	}
}

// siteWithoutScript uses the search box and the ask box with JavaScript off: each form
// submits to a page the server renders.
func siteWithoutScript(t *testing.T, base string) {
	ctx := browsertest.New(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("turn JavaScript off: %v", err)
	}
	browsertest.Do(t, ctx, "search without JavaScript",
		chromedp.Navigate(base+"/docs/errors"),
		chromedp.WaitVisible(chromedp.CSS("#site-q")),
		chromedp.SendKeys(chromedp.CSS("#site-q"), "after hours"),
		chromedp.Submit(chromedp.CSS("#site-q")),
		chromedp.WaitVisible(chromedp.CSS("main ul.pages li a")))
	got := browsertest.Run(t, ctx, "read the results page", chromedp.Evaluate[struct {
		Path, Query string
		Results     int
	}](`({Path: location.pathname, Query: new URLSearchParams(location.search).get('q'),
		Results: document.querySelectorAll('main ul.pages li a').length})`))
	if got.Path != "/search" || got.Query != "after hours" || got.Results == 0 {
		t.Errorf("search without JavaScript: %+v", got)
	}
	browsertest.Do(t, ctx, "ask without JavaScript",
		chromedp.Navigate(base+"/docs/errors"),
		chromedp.WaitVisible(chromedp.CSS("#ask-q")),
		chromedp.SendKeys(chromedp.CSS("#ask-q"), "What is the default page_size for messages?"),
		chromedp.Submit(chromedp.CSS("#ask-q")),
		chromedp.WaitVisible(chromedp.CSS("#ask-answer ol.sources a")))
	answer := browsertest.Run(t, ctx, "read the answer page", chromedp.Evaluate[struct {
		Path, Answer, Question string
	}](`({Path: location.pathname, Answer: document.querySelector('#ask-answer p').textContent,
		Question: document.getElementById('ask-q').value})`))
	if answer.Path != "/ask" || !strings.Contains(answer.Answer, "50") || answer.Question != "What is the default page_size for messages?" {
		t.Errorf("ask without JavaScript: %+v", answer)
	}
}

func siteHome(t *testing.T, ctx context.Context, base string, width int64) {
	browsertest.Do(t, ctx, "open the home page",
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(".hero h1")))
	got := browsertest.Run(t, ctx, "read the home page", chromedp.Evaluate[struct {
		Hero     string
		Services int
		Reach    int
		Contact  string
	}](`({Hero: document.querySelector('.hero h1').textContent,
		Services: document.querySelectorAll('#services-h + .cards li').length,
		Reach: document.querySelectorAll(".steps li a").length,
		Contact: document.querySelector('.contact').textContent})`))
	if got.Hero != "Every call answered, every message delivered" || got.Services != 7 || got.Reach < 4 ||
		!strings.Contains(got.Contact, "hello@answerdesk.example") {
		t.Errorf("home page: %+v", got)
	}
	browsertest.Fits(t, ctx, "home", width)
	browsertest.Axe(t, ctx, "home")
	browsertest.Screenshot(t, ctx, fmt.Sprintf("site-home-%d", width), width > 600)
}

func siteDocsPage(t *testing.T, ctx context.Context, base string, width int64) {
	browsertest.Do(t, ctx, "open a docs page",
		chromedp.Navigate(base+"/docs/pagination"),
		chromedp.WaitVisible(chromedp.CSS("main h1")))
	got := browsertest.Run(t, ctx, "read the docs page", chromedp.Evaluate[struct {
		Current, Prev, Next string
		Groups, Links, TOC  int
		MenuOpen, TOCShown  bool
	}](`({Current: document.querySelector('.sidebar a[aria-current=page]').getAttribute('href'),
		Prev: document.querySelector('.pager a[rel=prev]').getAttribute('href'),
		Next: document.querySelector('.pager a[rel=next]').getAttribute('href'),
		Groups: document.querySelectorAll('.sidebar h2').length,
		Links: document.querySelectorAll('.sidebar li a').length,
		TOC: document.querySelectorAll('.toc li a').length,
		MenuOpen: document.getElementById('docs-menu').open,
		TOCShown: getComputedStyle(document.querySelector('.toc')).display !== 'none'})`))
	if got.Current != "/docs/pagination" || got.Prev != "/docs/merge-variables" || got.Next != "/docs/errors" ||
		got.Groups != 5 || got.Links != 20 || got.TOC < 3 {
		t.Errorf("docs page: %+v", got)
	}
	// The menu is open beside the page on a laptop and folded above it on a phone; the
	// table of contents shows where there is room for it.
	if phone := width < 600; got.MenuOpen == phone || got.TOCShown == phone {
		t.Errorf("at %dpx: menu open %v, table of contents shown %v", width, got.MenuOpen, got.TOCShown)
	}
	browsertest.Fits(t, ctx, "docs page", width)
	browsertest.Axe(t, ctx, "docs page")
	browsertest.Screenshot(t, ctx, fmt.Sprintf("site-docs-%d", width), false)

	// A table of contents entry leads to its section.
	if width >= 1280 {
		href := browsertest.Run(t, ctx, "second toc entry", chromedp.Evaluate[string](`document.querySelectorAll('.toc li a')[1].getAttribute('href')`))
		browsertest.Do(t, ctx, "follow the toc", chromedp.Click(chromedp.CSS(`.toc li:nth-child(2) a`)))
		if loc := browsertest.Run(t, ctx, "location", chromedp.Location()); !strings.HasSuffix(loc, href) {
			t.Errorf("after the toc link %s: at %s", href, loc)
		}
	}

	// Copy page as Markdown puts the page's Markdown on the clipboard.
	for _, p := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: p}, Setting: browser.PermissionSettingGranted, Origin: base,
		}); err != nil {
			t.Fatalf("allow %s: %v", p, err)
		}
	}
	browsertest.Do(t, ctx, "copy as Markdown",
		chromedp.Click(chromedp.CSS("#copy-markdown")),
		chromedp.Poll[chromedp.Void](`document.getElementById('copy-status').textContent !== ''`))
	if status := browsertest.Run(t, ctx, "copy status", chromedp.Text(chromedp.CSS("#copy-status"))); status != "Copied the page as Markdown." {
		t.Fatalf("copy status %q", status)
	}
	md := browsertest.Run(t, ctx, "read the clipboard", chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if !strings.HasPrefix(md, "# Pagination\n") || !strings.Contains(md, "page_size") {
		t.Errorf("clipboard: %.200q", md)
	}
}

func siteSearch(t *testing.T, ctx context.Context, base string, width int64) {
	browsertest.Do(t, ctx, "open a page and type in the search box",
		chromedp.Navigate(base+"/pricing"),
		chromedp.WaitVisible(chromedp.CSS("#site-q")),
		chromedp.Click(chromedp.CSS("#site-q")),
		chromedp.SendKeys(chromedp.CSS("#site-q"), "escalat"),
		// Results of the first letters may show first; these are the whole word's.
		chromedp.Poll[chromedp.Void](`document.getElementById('search-results').dataset.query === 'escalat'`),
		chromedp.WaitVisible(chromedp.CSS(`#search-results li[role=option]`)))
	got := browsertest.Run(t, ctx, "read the results", chromedp.Evaluate[struct {
		Count      int
		First, All string
		Marked     bool
		Expanded   string
	}](`({Count: document.querySelectorAll('#search-results li[role=option]').length,
		First: document.querySelector('#search-results li[role=option]').dataset.href,
		Marked: !!document.querySelector('#search-results mark'),
		Expanded: document.getElementById('site-q').getAttribute('aria-expanded'),
		All: document.querySelector('#search-results li[role=option]:last-child').dataset.href})`))
	if got.Count < 3 || !got.Marked || got.Expanded != "true" || !strings.HasPrefix(got.First, "/") || got.All != "/search?q=escalat" {
		t.Fatalf("search results: %+v", got)
	}
	browsertest.Fits(t, ctx, "search", width)
	browsertest.Axe(t, ctx, "search results")
	browsertest.Screenshot(t, ctx, fmt.Sprintf("site-search-%d", width), false)

	// The keyboard chooses: down twice, up once is the first result; Enter opens it.
	browsertest.Do(t, ctx, "choose a result with the keyboard",
		chromedp.Focus(chromedp.CSS("#site-q")),
		chromedp.WaitVisible(chromedp.CSS(`#search-results li[role=option]`)),
		chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowUp))
	active := browsertest.Run(t, ctx, "active option", chromedp.Evaluate[string](`document.getElementById('site-q').getAttribute('aria-activedescendant')`))
	if active != "search-result-0" {
		t.Errorf("aria-activedescendant %q, want search-result-0", active)
	}
	browsertest.Do(t, ctx, "open it", chromedp.KeyEvent(kb.Enter))
	loc := leave(t, ctx, base+"/pricing")
	if loc.Path+fragment(loc) != got.First {
		t.Errorf("Enter opened %s, want the first result %s", loc, got.First)
	}
}

// leave waits until the browser has left the page at from and the next page has loaded,
// and returns where it is.
func leave(t *testing.T, ctx context.Context, from string) *url.URL {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		// Evaluating during a navigation fails (its context is gone): ask again.
		loc, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.readyState === 'complete' ? location.href : ''`))
		if err == nil && loc != "" && loc != from {
			u, err := url.Parse(loc)
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("still at %s after 10 s", from)
	return nil
}

func fragment(u *url.URL) string {
	if u.Fragment == "" {
		return ""
	}
	return "#" + u.Fragment
}

func siteAsk(t *testing.T, ctx context.Context, base string, width int64) {
	browsertest.Do(t, ctx, "ask the docs",
		chromedp.Navigate(base+"/docs/getting-started"),
		chromedp.WaitVisible(chromedp.CSS("#ask-q")),
		chromedp.SendKeys(chromedp.CSS("#ask-q"), "How long is call recording audio kept?"),
		chromedp.Click(chromedp.CSS(`#ask-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#ask-answer ol.sources a`)))
	got := browsertest.Run(t, ctx, "read the answer", chromedp.Evaluate[struct {
		Answer string
		Source string
		Path   string
	}](`({Answer: document.querySelector('#ask-answer p').textContent,
		Source: document.querySelector('#ask-answer ol.sources a').getAttribute('href'),
		Path: location.pathname})`))
	if !strings.Contains(got.Answer, "31 days") || got.Path != "/docs/getting-started" || !strings.HasPrefix(got.Source, "/docs/") {
		t.Fatalf("answer: %+v", got)
	}
	browsertest.Fits(t, ctx, "ask", width)
	browsertest.Axe(t, ctx, "answered question")
	browsertest.Screenshot(t, ctx, fmt.Sprintf("site-ask-%d", width), false)
	browsertest.Do(t, ctx, "follow the source", chromedp.Click(chromedp.CSS(`#ask-answer ol.sources a`)))
	loc := leave(t, ctx, base+"/docs/getting-started")
	if loc.Path+fragment(loc) != got.Source {
		t.Errorf("the source link led to %s, want %s", loc, got.Source)
	}

	// A question the docs do not cover says so and offers the nearest sections.
	browsertest.Do(t, ctx, "ask what the docs do not cover",
		chromedp.Navigate(base+"/docs"),
		chromedp.WaitVisible(chromedp.CSS("#ask-q")),
		chromedp.SendKeys(chromedp.CSS("#ask-q"), "What is the capital of France?"),
		chromedp.Click(chromedp.CSS(`#ask-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#ask-answer .declined`)))
	if text := browsertest.Run(t, ctx, "read the decline", chromedp.Text(chromedp.CSS("#ask-answer"))); !strings.Contains(text, "The docs do not cover this.") {
		t.Errorf("declined: %q", text)
	}
}

// siteOtherPages checks the other kinds of page fit the screen and pass axe-core: the
// section indexes, a service, a blog post, the docs index, and the pages the forms lead to
// without the script (search results, an answer, a page not found).
func siteOtherPages(t *testing.T, ctx context.Context, base string, width int64) {
	for _, path := range []string{"/services", "/services/live-answering", "/pricing", "/blog/how-on-call-escalation-schedules-work",
		"/industries/law-firms", "/company", "/docs", "/docs/errors", "/search?q=on-call+escalation", "/ask?q=What+is+the+default+page_size%3F",
		"/no/such/page"} {
		browsertest.Do(t, ctx, "open "+path, chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS("main h1, main form")))
		browsertest.Fits(t, ctx, path, width)
		browsertest.Axe(t, ctx, path)
	}
}
