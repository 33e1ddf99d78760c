package dispatch

// Internal tests: the SSRF tests build clients around their own resolver and dial Control so
// that no packet ever leaves loopback, which needs the unexported newWebhookClient.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
)

// errWebhookTestNoTraffic is what the tests' dial Control returns for a non-loopback address
// the guard let through, so that the connection is never attempted.
var errWebhookTestNoTraffic = errors.New("test: connection to a non-loopback address stopped before connect")

// webhookLoopbackOnly wraps control (nil: none) with a last check, run after it and still
// before connect, that stops every connection to a non-loopback address and records it.
// Tests use it so that, whatever the guard does, no packet goes beyond loopback.
func webhookLoopbackOnly(control func(string, string, syscall.RawConn) error, stopped *[]string,
	mu *sync.Mutex) func(string, string, syscall.RawConn) error {
	return func(network, address string, c syscall.RawConn) error {
		if control != nil {
			if err := control(network, address, c); err != nil {
				return err
			}
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			mu.Lock()
			*stopped = append(*stopped, address)
			mu.Unlock()
			return errWebhookTestNoTraffic
		}
		return nil
	}
}

// webhookReceived is one request as the receiver saw it.
type webhookReceived struct {
	method, path, host string
	header             http.Header
	body               []byte
	user, pass         string
	basic              bool
}

// webhookReceiver records requests and answers with respond (default 200 "ok").
type webhookReceiver struct {
	respond func(w http.ResponseWriter, r *http.Request)

	mu   sync.Mutex
	reqs []webhookReceived
}

func (f *webhookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rec := webhookReceived{method: r.Method, path: r.URL.Path, host: r.Host, header: r.Header.Clone(), body: b}
	rec.user, rec.pass, rec.basic = r.BasicAuth()
	f.mu.Lock()
	f.reqs = append(f.reqs, rec)
	f.mu.Unlock()
	if f.respond != nil {
		f.respond(w, r)
		return
	}
	_, _ = io.WriteString(w, "ok")
}

func (f *webhookReceiver) requests() []webhookReceived {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]webhookReceived(nil), f.reqs...)
}

func startWebhookReceiver(t *testing.T, f *webhookReceiver) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

// privateWebhookClient is a client that may reach loopback (and nothing else).
func privateWebhookClient(t *testing.T) *WebhookClient {
	t.Helper()
	var mu sync.Mutex
	var stopped []string
	c := newWebhookClient("test", webhookLoopbackOnly(nil, &stopped, &mu), nil)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestWebhookSendsRequest(t *testing.T) {
	f := &webhookReceiver{}
	srv := startWebhookReceiver(t, f)
	c := NewWebhookClient("1.4.2", true)
	t.Cleanup(c.CloseIdleConnections)
	now := time.Unix(1_700_000_000, 0)
	c.Now = func() time.Time { return now }
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"caller":"Ann","message":"héllo"}`)
	w := &Webhook{
		ID: "0b3c0e52-8f0e-4d55-9d2c-51f2d8a4c111", URL: srv.URL + "/hooks/in?x=1",
		ContentType: "application/json", Body: body,
		Headers: map[string]string{
			"X-Key": "k3y", "accept": "application/xml",
			// the sender's own headers: skipped
			"Idempotency-Key": "evil", "user-agent": "evil", "Host": "evil.example",
			"Content-Length": "1", "webhook-id": "evil", "Webhook-Signature": "v1,evil",
			"Transfer-Encoding": "chunked",
		},
		BasicUser: "u s", BasicPass: "p:ss", SigningSecret: secret,
	}
	r := c.Send(context.Background(), w)
	if r.Err != nil || r.StatusCode != 200 || r.Outcome() != WebhookDelivered {
		t.Fatalf("result = %+v, outcome %s", r, r.Outcome())
	}
	if r.Excerpt != "ok" || r.Duration <= 0 || r.RetryAfter != 0 {
		t.Errorf("excerpt %q, duration %v, retry after %v", r.Excerpt, r.Duration, r.RetryAfter)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.method != http.MethodPost || got.path != "/hooks/in" || string(got.body) != string(body) {
		t.Errorf("request %s %s %q", got.method, got.path, got.body)
	}
	if got.host != strings.TrimPrefix(srv.URL, "http://") {
		t.Errorf("Host = %q", got.host)
	}
	h := got.header
	for name, want := range map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        "answerdesk-dispatch/1.4.2",
		"Idempotency-Key":   w.ID,
		"X-Key":             "k3y",
		"Accept":            "application/xml",
		"Content-Length":    strconv.Itoa(len(body)),
		"Webhook-Id":        w.ID,
		"Webhook-Timestamp": "1700000000",
	} {
		if v := h.Values(name); len(v) != 1 || v[0] != want {
			t.Errorf("%s = %q, want %q", name, v, want)
		}
	}
	if len(h.Values("Transfer-Encoding")) != 0 {
		t.Errorf("Transfer-Encoding = %q", h.Values("Transfer-Encoding"))
	}
	if !got.basic || got.user != "u s" || got.pass != "p:ss" {
		t.Errorf("basic auth = %v %q %q", got.basic, got.user, got.pass)
	}
	// Verify as a receiver would, independently of SignWebhook.
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("Webhook-Id") + "." + h.Get("Webhook-Timestamp") + "." + string(got.body)))
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); h.Get("Webhook-Signature") != want {
		t.Errorf("webhook-signature = %q, want %q", h.Get("Webhook-Signature"), want)
	}

	// Unsigned and without credentials: none of those headers; a customer Content-Type wins.
	w2 := &Webhook{ID: "id-2", URL: srv.URL, ContentType: "application/x-www-form-urlencoded",
		Body: []byte("a=1&b=2"), Headers: map[string]string{"content-type": "text/plain; charset=utf-8"},
		BasicUser: "only-user"}
	if r := c.Send(context.Background(), w2); r.Outcome() != WebhookDelivered {
		t.Fatalf("second send: %+v", r)
	}
	got = f.requests()[1]
	if ct := got.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if got.basic || got.header.Get("Webhook-Signature") != "" || got.header.Get("Webhook-Id") != "" ||
		got.header.Get("Webhook-Timestamp") != "" || got.header.Get("Idempotency-Key") != "id-2" {
		t.Errorf("unsigned request headers: %v", got.header)
	}
}

func TestWebhookFormContentType(t *testing.T) {
	f := &webhookReceiver{}
	srv := startWebhookReceiver(t, f)
	c := privateWebhookClient(t)
	r := c.Send(context.Background(), &Webhook{ID: "f", URL: srv.URL,
		ContentType: "application/x-www-form-urlencoded", Body: []byte("name=Ann+B")})
	if r.Outcome() != WebhookDelivered {
		t.Fatalf("%+v", r)
	}
	got := f.requests()[0]
	if got.header.Get("Content-Type") != "application/x-www-form-urlencoded" || string(got.body) != "name=Ann+B" {
		t.Errorf("Content-Type %q body %q", got.header.Get("Content-Type"), got.body)
	}
}

// TestSignWebhookVector checks the Standard Webhooks test vector, as in the reference
// libraries' TestWebhookSign (standard-webhooks/libraries/go/webhook_test.go).
func TestSignWebhookVector(t *testing.T) {
	sig, err := SignWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		1614265330, []byte(`{"test": 2432232314}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; sig != want {
		t.Errorf("signature = %q, want %q", sig, want)
	}
	for _, bad := range []string{"whsec_", "whsec_not base64!", "whsec_%%%%"} {
		if _, err := SignWebhook(bad, "id", 1, nil); !errors.Is(err, ErrWebhookInvalid) {
			t.Errorf("SignWebhook(%q) error = %v, want ErrWebhookInvalid", bad, err)
		}
	}
	// A bad secret fails the attempt without sending it.
	f := &webhookReceiver{}
	srv := startWebhookReceiver(t, f)
	r := privateWebhookClient(t).Send(context.Background(), &Webhook{ID: "x", URL: srv.URL, SigningSecret: "whsec_!!"})
	if !errors.Is(r.Err, ErrWebhookInvalid) || r.Outcome() != WebhookFailed || len(f.requests()) != 0 {
		t.Errorf("bad secret: %+v, outcome %s, %d requests", r, r.Outcome(), len(f.requests()))
	}
}

func TestWebhookOutcome(t *testing.T) {
	netErr := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		r    WebhookResult
		want string
	}{
		{WebhookResult{StatusCode: 200}, WebhookDelivered},
		{WebhookResult{StatusCode: 201}, WebhookDelivered},
		{WebhookResult{StatusCode: 204}, WebhookDelivered},
		{WebhookResult{StatusCode: 301}, WebhookFailed},
		{WebhookResult{StatusCode: 400}, WebhookFailed},
		{WebhookResult{StatusCode: 404}, WebhookFailed},
		{WebhookResult{StatusCode: 408}, WebhookRetry},
		{WebhookResult{StatusCode: 410}, WebhookGone},
		{WebhookResult{StatusCode: 429}, WebhookRetry},
		{WebhookResult{StatusCode: 500}, WebhookRetry},
		{WebhookResult{StatusCode: 503}, WebhookRetry},
		{WebhookResult{Err: netErr}, WebhookRetry},
		{WebhookResult{Err: context.DeadlineExceeded}, WebhookRetry},
		{WebhookResult{Err: fmt.Errorf("dial: %w", ErrWebhookRefused)}, WebhookFailed},
		{WebhookResult{Err: fmt.Errorf("x: %w", ErrWebhookInvalid)}, WebhookFailed},
	} {
		if got := tc.r.Outcome(); got != tc.want {
			t.Errorf("Outcome(%d, %v) = %s, want %s", tc.r.StatusCode, tc.r.Err, got, tc.want)
		}
	}
}

func TestWebhookStatusesAndNetworkError(t *testing.T) {
	f := &webhookReceiver{respond: func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		w.WriteHeader(code)
	}}
	srv := startWebhookReceiver(t, f)
	c := privateWebhookClient(t)
	for code, want := range map[int]string{200: WebhookDelivered, 204: WebhookDelivered, 400: WebhookFailed,
		404: WebhookFailed, 408: WebhookRetry, 410: WebhookGone, 429: WebhookRetry, 500: WebhookRetry, 503: WebhookRetry} {
		r := c.Send(context.Background(), &Webhook{ID: "s", URL: srv.URL + "/" + strconv.Itoa(code)})
		if r.Err != nil || r.StatusCode != code || r.Outcome() != want {
			t.Errorf("status %d: %+v, outcome %s, want %s", code, r, r.Outcome(), want)
		}
	}

	// Nothing listens on a closed loopback port: a network error, retried.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	r := c.Send(context.Background(), &Webhook{ID: "n", URL: "http://" + addr + "/"})
	if r.Err == nil || r.StatusCode != 0 || r.Outcome() != WebhookRetry {
		t.Errorf("closed port: %+v, outcome %s", r, r.Outcome())
	}
}

func TestWebhookRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := &webhookReceiver{respond: func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/seconds":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/date":
			w.Header().Set("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}}
	srv := startWebhookReceiver(t, f)
	c := privateWebhookClient(t)
	c.Now = func() time.Time { return now }
	for path, want := range map[string]time.Duration{"/seconds": 2 * time.Minute, "/date": 90 * time.Second} {
		r := c.Send(context.Background(), &Webhook{ID: "r", URL: srv.URL + path})
		if r.RetryAfter != want || r.Outcome() != WebhookRetry {
			t.Errorf("%s: retry after %v, outcome %s; want %v, retry", path, r.RetryAfter, r.Outcome(), want)
		}
	}

	for v, want := range map[string]time.Duration{
		"": 0, "0": 0, "  30 ": 30 * time.Second, "-5": 0, "1.5": 0, "soon": 0,
		"86400": 24 * time.Hour, "86401": 24 * time.Hour, "99999999999999999999999": 24 * time.Hour,
		now.Add(-time.Minute).Format(http.TimeFormat):   0,
		now.Add(48 * time.Hour).Format(http.TimeFormat): 24 * time.Hour,
		now.Add(time.Hour).Format(time.RFC850):          time.Hour,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestWebhookExcerptAndConnectionReuse(t *testing.T) {
	// 255 ASCII bytes then "é" straddles the 256-byte cut; then a long tail to drain.
	body := strings.Repeat("a", answerdesk.MaxAttemptExcerptBytes-1) + "é" + strings.Repeat("b", 20<<10)
	f := &webhookReceiver{respond: func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, body)
	}}
	srv := httptest.NewUnstartedServer(f)
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := privateWebhookClient(t)
	for range 3 {
		r := c.Send(context.Background(), &Webhook{ID: "e", URL: srv.URL})
		if r.StatusCode != 400 || r.Outcome() != WebhookFailed {
			t.Fatalf("%+v", r)
		}
		if r.Excerpt != strings.Repeat("a", answerdesk.MaxAttemptExcerptBytes-1) || !utf8.ValidString(r.Excerpt) {
			t.Fatalf("excerpt %d bytes %q…", len(r.Excerpt), r.Excerpt[len(r.Excerpt)-5:])
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 3 requests, want 1 (body drained for reuse)", n)
	}

	for _, tc := range []struct{ in, want string }{
		{"ok", "ok"},
		{"a\xffb", "a\uFFFDb"},
		{"ab\xe2\x82", "ab"}, // "€" cut after two of its three bytes
		{strings.Repeat("\xff.", 600), ""},
	} {
		got := utf8Excerpt([]byte(tc.in), 1024)
		if !utf8.ValidString(got) || len(got) > 1024 || (tc.want != "" && got != tc.want) {
			t.Errorf("utf8Excerpt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWebhookRedirectNotFollowed(t *testing.T) {
	var followed atomic.Int32
	f := &webhookReceiver{respond: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed.Add(1)
			return
		}
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/start/"))
		http.Redirect(w, r, "/elsewhere", code)
	}}
	srv := startWebhookReceiver(t, f)
	c := privateWebhookClient(t)
	for _, code := range []int{301, 302, 303, 307, 308} {
		r := c.Send(context.Background(), &Webhook{ID: "d", URL: srv.URL + "/start/" + strconv.Itoa(code)})
		if r.StatusCode != code || r.Err != nil || r.Outcome() != WebhookFailed {
			t.Errorf("%d: %+v, outcome %s", code, r, r.Outcome())
		}
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("redirect followed %d times", n)
	}
}

func TestWebhookTimeout(t *testing.T) {
	f := &webhookReceiver{respond: func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}}
	srv := startWebhookReceiver(t, f)
	c := privateWebhookClient(t)
	c.Timeout = 200 * time.Millisecond
	start := time.Now()
	r := c.Send(context.Background(), &Webhook{ID: "t", URL: srv.URL})
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("took %v with a 200 ms timeout", elapsed)
	}
	if r.Err == nil || !errors.Is(r.Err, context.DeadlineExceeded) || r.StatusCode != 0 || r.Outcome() != WebhookRetry {
		t.Errorf("%+v, outcome %s", r, r.Outcome())
	}
	if NewWebhookClient("v", false).Timeout != 10*time.Second {
		t.Error("default timeout is not 10 s")
	}
}

func TestWebhookRefusesNonHTTP(t *testing.T) {
	c := privateWebhookClient(t)
	for _, u := range []string{"ftp://example.com/x", "file:///etc/passwd", "gopher://127.0.0.1:70/", "javascript:alert(1)", "127.0.0.1:80"} {
		r := c.Send(context.Background(), &Webhook{ID: "s", URL: u})
		if !errors.Is(r.Err, ErrWebhookRefused) && !errors.Is(r.Err, ErrWebhookInvalid) || r.Outcome() != WebhookFailed {
			t.Errorf("%s: %+v, outcome %s", u, r, r.Outcome())
		}
	}
	for _, u := range []string{"http://", "http://%zz", "https:///path"} {
		if r := c.Send(context.Background(), &Webhook{ID: "s", URL: u}); !errors.Is(r.Err, ErrWebhookInvalid) || r.Outcome() != WebhookFailed {
			t.Errorf("%s: %+v, outcome %s", u, r, r.Outcome())
		}
	}
	// A header that would split the request is refused, not sent.
	f := &webhookReceiver{}
	srv := startWebhookReceiver(t, f)
	for _, h := range []map[string]string{{"X-A": "b\r\nX-Injected: 1"}, {"Bad Name": "x"}, {"X-Nul": "a\x00"}} {
		r := c.Send(context.Background(), &Webhook{ID: "h", URL: srv.URL, Headers: h})
		if !errors.Is(r.Err, ErrWebhookInvalid) || r.Outcome() != WebhookFailed {
			t.Errorf("headers %q: %+v", h, r)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent with malformed headers", n)
	}
}

// TestSSRFGuardRefusesLoopbackServer: the public constructor, without allowPrivate, refuses
// the test server on 127.0.0.1, by address and by the name localhost.
func TestSSRFGuardRefusesLoopbackServer(t *testing.T) {
	f := &webhookReceiver{}
	srv := startWebhookReceiver(t, f)
	c := NewWebhookClient("v", false)
	t.Cleanup(c.CloseIdleConnections)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{srv.URL + "/hook", fmt.Sprintf("http://localhost:%d/hook", port)} {
		r := c.Send(context.Background(), &Webhook{ID: "x", URL: u})
		if !errors.Is(r.Err, ErrWebhookRefused) || r.StatusCode != 0 || r.Outcome() != WebhookFailed {
			t.Errorf("%s: %+v, outcome %s", u, r, r.Outcome())
			continue
		}
		if !strings.Contains(r.Err.Error(), "127.0.0.1") {
			t.Errorf("%s: error %q does not name the address", u, r.Err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests reached the loopback server", n)
	}
}

// TestSSRFGuardRefusesAtDial sends to forbidden IP literals through the guard. The guard runs
// as the dialer's Control, after the socket is made and before connect, so nothing is sent;
// the loopback-only check behind it would stop the connection (and fail the test) if the guard
// let one through.
func TestSSRFGuardRefusesAtDial(t *testing.T) {
	var mu sync.Mutex
	var stopped []string
	c := newWebhookClient("v", webhookLoopbackOnly(webhookGuard(false), &stopped, &mu), nil)
	t.Cleanup(c.CloseIdleConnections)
	for _, tc := range []struct{ url, addr string }{
		{"http://10.0.0.1/hook", "10.0.0.1"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254"},
		{"http://[::1]:8080/hook", "::1"},
		{"https://192.168.1.1/hook", "192.168.1.1"},
		{"http://100.64.0.1/", "100.64.0.1"},
		{"http://0.0.0.0:9/", "0.0.0.0"},
		{"http://[::ffff:127.0.0.1]/", "127.0.0.1"},
	} {
		r := c.Send(context.Background(), &Webhook{ID: "x", URL: tc.url})
		if !errors.Is(r.Err, ErrWebhookRefused) || r.Outcome() != WebhookFailed {
			t.Errorf("%s: %+v, outcome %s", tc.url, r, r.Outcome())
			continue
		}
		if !strings.Contains(r.Err.Error(), tc.addr) {
			t.Errorf("%s: error %q does not name %s", tc.url, r.Err, tc.addr)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stopped) != 0 {
		t.Errorf("guard let through %v", stopped)
	}
}

// TestSSRFGuardAddresses checks the guard's Control directly, as ssrf's own tests do: no
// socket at all.
func TestSSRFGuardAddresses(t *testing.T) {
	guard, private := webhookGuard(false), webhookGuard(true)
	for _, tc := range []struct {
		network, address string
		allowed          bool
		// allowedPrivate: allowed with --dispatch-allow-private (loopback and private
		// networks, never link-local, metadata or the other reserved ranges).
		allowedPrivate bool
	}{
		{"tcp4", "8.8.8.8:443", true, true},
		{"tcp4", "1.1.1.1:8443", true, true}, // any port
		{"tcp6", "[2606:4700:4700::1111]:443", true, true},
		{"tcp4", "127.0.0.1:80", false, true},
		{"tcp4", "127.8.9.10:443", false, true},
		{"tcp4", "10.0.0.1:443", false, true},
		{"tcp4", "172.16.5.4:443", false, true},
		{"tcp4", "192.168.1.1:443", false, true},
		{"tcp4", "169.254.169.254:80", false, false},
		{"tcp4", "100.64.0.1:443", false, false}, // CGNAT
		{"tcp4", "0.0.0.0:80", false, false},
		{"tcp4", "224.0.0.1:80", false, false},
		{"tcp4", "255.255.255.255:80", false, false},
		{"tcp4", "192.0.2.2:80", false, false},
		{"tcp6", "[::1]:80", false, true},
		{"tcp6", "[::]:80", false, false},
		{"tcp6", "[fe80::1%eth0]:80", false, false},
		{"tcp6", "[fc00::1]:80", false, true},
		{"tcp6", "[fd00:ec2::254]:80", false, false}, // AWS IPv6 metadata
		{"tcp6", "[::ffff:127.0.0.1]:80", false, false},
		{"tcp6", "[::ffff:169.254.169.254]:80", false, false},
		{"tcp6", "[64:ff9b::7f00:1]:80", false, false}, // NAT64 of 127.0.0.1
		{"tcp6", "[2001:db8::1]:80", false, false},
		{"udp4", "8.8.8.8:53", false, false},
	} {
		for _, g := range []struct {
			name    string
			guard   func(string, string, syscall.RawConn) error
			allowed bool
		}{{"", guard, tc.allowed}, {"with private allowed: ", private, tc.allowedPrivate}} {
			err := g.guard(tc.network, tc.address, nil)
			if g.allowed && err != nil {
				t.Errorf("%s%s %s refused: %v", g.name, tc.network, tc.address, err)
			}
			if !g.allowed && !errors.Is(err, ErrWebhookRefused) {
				t.Errorf("%s%s %s: error %v, want ErrWebhookRefused", g.name, tc.network, tc.address, err)
			}
		}
	}
}

// TestSSRFGuardDNSRebinding resolves one name through a fake DNS server on loopback that
// answers a public address first and 127.0.0.1 after. The first attempt passes the guard (and
// is stopped by the test's loopback-only check before connect); the second is refused by the
// guard on the address it is about to dial.
func TestSSRFGuardDNSRebinding(t *testing.T) {
	f := &webhookReceiver{}
	srv := startWebhookReceiver(t, f)
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	dns := startFakeDNS(t, []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("127.0.0.1")})
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", dns)
	}}
	var mu sync.Mutex
	var stopped []string
	c := newWebhookClient("v", webhookLoopbackOnly(webhookGuard(false), &stopped, &mu), resolver)
	t.Cleanup(c.CloseIdleConnections)
	u := fmt.Sprintf("http://rebind.answerdesk.test:%d/hook", port)

	r := c.Send(context.Background(), &Webhook{ID: "x", URL: u})
	if !errors.Is(r.Err, errWebhookTestNoTraffic) {
		t.Fatalf("public answer: %+v, want the guard to allow it (and the test to stop it)", r)
	}
	mu.Lock()
	if want := fmt.Sprintf("8.8.8.8:%d", port); len(stopped) != 1 || stopped[0] != want {
		t.Errorf("stopped %v, want [%s]", stopped, want)
	}
	mu.Unlock()

	r = c.Send(context.Background(), &Webhook{ID: "x", URL: u})
	if !errors.Is(r.Err, ErrWebhookRefused) || r.Outcome() != WebhookFailed || !strings.Contains(r.Err.Error(), "127.0.0.1") {
		t.Errorf("rebound to loopback: %+v, outcome %s", r, r.Outcome())
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests reached the loopback server", n)
	}
}

// startFakeDNS serves DNS over UDP on 127.0.0.1: the n-th A query is answered with answers[n]
// (the last one once they run out), AAAA and other queries with no records; with no answers,
// every query is NXDOMAIN (no such host). It returns the server's address.
func startFakeDNS(t *testing.T, answers []netip.Addr) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	var n int
	go func() {
		buf := make([]byte, 1500)
		for {
			size, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			q := buf[:size]
			// header (12 bytes), then one question: labels up to a zero byte, type, class.
			if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
				continue
			}
			end := 12
			for end < len(q) && q[end] != 0 {
				end += int(q[end]) + 1
			}
			end += 5
			if end > len(q) {
				continue
			}
			qtype := binary.BigEndian.Uint16(q[end-4 : end-2])
			resp := make([]byte, 0, end+16)
			resp = append(resp, q[0], q[1])             // id
			resp = append(resp, 0x84|(q[2]&0x01), 0x80) // QR, AA, RD as asked; RA; NOERROR
			resp = append(resp, 0, 1, 0, 0, 0, 0, 0, 0) // 1 question, answers set below
			resp = append(resp, q[12:end]...)           // the question
			if len(answers) == 0 {
				resp[3] |= 3 // RCODE NXDOMAIN
			} else if qtype == 1 {
				a := answers[min(n, len(answers)-1)]
				n++
				resp[7] = 1
				ip := a.As4()
				resp = append(resp, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4) // name ptr, A, IN, TTL 0, len 4
				resp = append(resp, ip[:]...)
			}
			_, _ = pc.WriteTo(resp, from)
		}
	}()
	return pc.LocalAddr().String()
}

// TestWebhookErrorSummary: an attempt's stored error showed the service's
// resolver ("lookup x on 10.x.x.x:53") and the addresses it resolved. Each real failure
// below still has those in Err (for the operator's log), while Summary, what the customer
// sees, holds a category and the host of the configured URL only.
func TestWebhookErrorSummary(t *testing.T) {
	nxdomain := startFakeDNS(t, nil)
	nxResolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", nxdomain)
	}}
	dnsClient := newWebhookClient("v", webhookLoopbackOnly(nil, new([]string), &sync.Mutex{}), nxResolver)
	t.Cleanup(dnsClient.CloseIdleConnections)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	_ = closed.Close()

	hang := startWebhookReceiver(t, &webhookReceiver{respond: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }})
	plain := startWebhookReceiver(t, &webhookReceiver{})
	tlsSrv := httptest.NewTLSServer(&webhookReceiver{})
	t.Cleanup(tlsSrv.Close)
	hangup, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hangup.Close() })
	go func() {
		for {
			c, err := hangup.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 4096)) // the request, then no answer at all
			_ = c.Close()
		}
	}()
	guarded := NewWebhookClient("v", false)
	t.Cleanup(guarded.CloseIdleConnections)
	private := privateWebhookClient(t)
	fast := privateWebhookClient(t)
	fast.Timeout = 200 * time.Millisecond
	hostOf := func(u string) string { return strings.TrimPrefix(strings.TrimPrefix(u, "http://"), "https://") }

	tests := []struct {
		name     string
		client   *WebhookClient
		webhook  Webhook
		want     string
		internal string // what Err shows and Summary must not
	}{
		{"dns_no_such_host_names_the_host_not_the_resolver", dnsClient, Webhook{URL: "https://hooks.answerdesk.test/in"},
			"dns: no such host hooks.answerdesk.test", " on "}, // "lookup <host> on <the service's resolver>:53"
		{"refused_connection_names_the_host_not_the_address", private, Webhook{URL: fmt.Sprintf("http://localhost:%d/in", closedPort)},
			fmt.Sprintf("connect: refused by localhost:%d", closedPort), "127.0.0.1"},
		{"private_destination_is_blocked_without_the_address", guarded, Webhook{URL: strings.Replace(plain.URL, "127.0.0.1", "localhost", 1)},
			"blocked: " + hostOf(strings.Replace(plain.URL, "127.0.0.1", "localhost", 1)) + " resolves to a private, loopback or reserved address, which deliveries may not reach", "127.0.0.1"},
		{"timeout_says_how_long", fast, Webhook{URL: hang.URL}, "timeout after 200ms waiting for " + hostOf(hang.URL), "deadline"},
		{"https_to_a_plain_server", private, Webhook{URL: strings.Replace(plain.URL, "http://", "https://", 1)},
			"tls: " + hostOf(plain.URL) + " did not answer with TLS (is the URL http rather than https?)", "HTTP response"},
		{"untrusted_certificate", private, Webhook{URL: tlsSrv.URL}, "tls: the certificate of " + hostOf(tlsSrv.URL) + " is signed by an unknown authority", "x509"},
		{"connection_closed_without_an_answer", private, Webhook{URL: "http://" + hangup.Addr().String() + "/"},
			"http: " + hangup.Addr().String() + " closed the connection without an answer", "EOF"},
		{"malformed_header", private, Webhook{URL: plain.URL, Headers: map[string]string{"X-A": "a\r\nb"}}, "invalid: a configured header is malformed", "X-A"},
		{"bad_signing_secret", private, Webhook{URL: plain.URL, SigningSecret: "whsec_!!"}, "invalid: the signing secret is not valid", "base64"},
		{"scheme_not_http", private, Webhook{URL: "ftp://files.example.com/x"}, "blocked: the URL's scheme is not http or https", "ftp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.webhook.ID = "summary"
			r := tc.client.Send(context.Background(), &tc.webhook)
			if r.Err == nil {
				t.Fatalf("no error: %+v", r)
			}
			if r.Summary != tc.want {
				t.Errorf("summary %q, want %q (error %v)", r.Summary, tc.want, r.Err)
			}
			if !strings.Contains(r.Err.Error(), tc.internal) {
				t.Errorf("error %q does not show %q: the case does not reproduce the leak", r.Err, tc.internal)
			}
			for _, leak := range []string{tc.internal, "127.0.0.1", "[::1]", ":53", " on "} {
				if leak != "" && strings.Contains(r.Summary, leak) && !strings.Contains(tc.want, leak) {
					t.Errorf("summary %q shows %q", r.Summary, leak)
				}
			}
		})
	}
	if got := (WebhookResult{StatusCode: 200}).Summary; got != "" {
		t.Errorf("summary of a response %q", got)
	}
}

// TestWebhookGuardSelf: the addresses given as self (the server's own listener, for the
// demo receiver) get through the guard; another service on loopback stays refused.
func TestWebhookGuardSelf(t *testing.T) {
	ok := func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }
	self := httptest.NewServer(http.HandlerFunc(ok))
	defer self.Close()
	other := httptest.NewServer(http.HandlerFunc(ok))
	defer other.Close()
	selfAddr := netip.MustParseAddrPort(strings.TrimPrefix(self.URL, "http://"))
	c := NewWebhookClient("v", false, selfAddr)
	t.Cleanup(c.CloseIdleConnections)
	ctx := context.Background()
	if res := c.Send(ctx, &Webhook{ID: "1", URL: self.URL + "/demo/receiver", ContentType: "application/json", Body: []byte(`{}`)}); res.Err != nil || res.StatusCode != 204 {
		t.Errorf("to self: %d %v", res.StatusCode, res.Err)
	}
	if res := c.Send(ctx, &Webhook{ID: "2", URL: other.URL + "/in", ContentType: "application/json", Body: []byte(`{}`)}); !errors.Is(res.Err, ErrWebhookRefused) {
		t.Errorf("to another loopback port: %d %v, want refused", res.StatusCode, res.Err)
	}
	if res := NewWebhookClient("v", false).Send(ctx, &Webhook{ID: "3", URL: self.URL + "/demo/receiver", ContentType: "application/json", Body: []byte(`{}`)}); !errors.Is(res.Err, ErrWebhookRefused) {
		t.Errorf("to self without being told: %d %v, want refused", res.StatusCode, res.Err)
	}
}
