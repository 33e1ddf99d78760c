package dispatch

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"code.dny.dev/ssrf"

	"github.com/answerdesk/answerdesk"
)

// Webhook is one request to a customer endpoint, already rendered.
type Webhook struct {
	// ID is the delivery's uuid, sent as Idempotency-Key and webhook-id: the same on every retry.
	ID          string
	URL         string
	ContentType string // "application/json" or "application/x-www-form-urlencoded"
	Body        []byte
	// Headers are the customer-configured headers. They may include Authorization, Accept,
	// and Content-Type, which then overrides ContentType. Those the sender owns
	// (answerdesk.ReservedHeader) are skipped.
	Headers              map[string]string
	BasicUser, BasicPass string // Basic auth when both are set
	SigningSecret        string // "whsec_<base64>" or ""
}

// WebhookResult is what one attempt returned.
type WebhookResult struct {
	StatusCode int // 0 when no response arrived
	Duration   time.Duration
	Excerpt    string // the first answerdesk.MaxAttemptExcerptBytes of the response body, as valid UTF-8
	// RetryAfter is the response's Retry-After (delay-seconds or an HTTP-date relative to the
	// client's Now), capped at 24 h; 0 when absent, invalid or in the past.
	RetryAfter time.Duration
	Err        error // network, timeout, SSRF or invalid-request error; nil when a response arrived
	// Summary says what Err was in words safe to show the customer: a category and the host
	// they configured ("dns: no such host hooks.example.com", "timeout after 10s waiting for
	// hooks.example.com"), never an address the service resolved, its resolver, or other
	// internals, which Err may hold (log Err, store Summary). "" when Err is nil.
	Summary string
}

// Webhook outcomes.
const (
	WebhookDelivered = "delivered"
	WebhookRetry     = "retry"
	WebhookFailed    = "failed"
	WebhookGone      = "gone"
)

var (
	// ErrWebhookRefused marks a destination the client will not connect to: a non-http(s)
	// URL, or an address the SSRF guard denies. Retrying cannot help.
	ErrWebhookRefused = errors.New("webhook destination refused")
	// ErrWebhookInvalid marks a webhook that cannot be sent as configured (unparsable URL,
	// malformed header, bad signing secret). Retrying cannot help.
	ErrWebhookInvalid = errors.New("invalid webhook")
	// errAddressBlocked marks the SSRF guard's refusal of a resolved address (with
	// ErrWebhookRefused), as opposed to a refused scheme.
	errAddressBlocked = errors.New("destination address not allowed")
)

const (
	// DefaultWebhookTimeout bounds one attempt, from dialling to the response excerpt (§2).
	DefaultWebhookTimeout = 10 * time.Second
	// webhookExcerptSize is how much of a response body is kept on the attempt.
	webhookExcerptSize = answerdesk.MaxAttemptExcerptBytes
	// webhookDrainSize is how much more of a response body is read so that the connection
	// can go back to the pool; a longer body closes the connection instead.
	webhookDrainSize = 64 << 10
	// maxRetryAfter caps what an endpoint can ask the dispatcher to wait.
	maxRetryAfter = 24 * time.Hour
	// webhookSecretPrefix starts a Standard Webhooks signing secret.
	webhookSecretPrefix = "whsec_"
)

// Outcome classifies a result: 2xx delivered; 410 gone (the method is to be disabled);
// network errors, timeouts, 408, 429 and 5xx retry; a refused destination or an invalid
// request failed (retrying cannot help); every other status (3xx, other 4xx) failed.
func (r WebhookResult) Outcome() string {
	if r.Err != nil {
		if errors.Is(r.Err, ErrWebhookRefused) || errors.Is(r.Err, ErrWebhookInvalid) {
			return WebhookFailed
		}
		return WebhookRetry
	}
	switch s := r.StatusCode; {
	case s == 0:
		return WebhookRetry // no response and no error recorded: nothing says it arrived
	case s >= 200 && s < 300:
		return WebhookDelivered
	case s == http.StatusGone:
		return WebhookGone
	case s == http.StatusRequestTimeout, s == http.StatusTooManyRequests, s >= 500 && s < 600:
		return WebhookRetry
	default:
		return WebhookFailed
	}
}

// WebhookClient sends webhooks. It is safe for concurrent use once its fields are set.
type WebhookClient struct {
	// Now is the clock of webhook-timestamp and of Retry-After dates (default time.Now).
	Now func() time.Time
	// Timeout bounds one attempt, including reading the response excerpt
	// (default DefaultWebhookTimeout).
	Timeout time.Duration

	userAgent string
	transport *http.Transport
	client    *http.Client
}

// NewWebhookClient returns a client with a 10 s timeout that follows no redirects (a 3xx is
// returned as is, and fails), sends User-Agent "answerdesk-dispatch/"+version, and refuses
// at dial time every non-public destination (loopback, private, link-local, CGNAT, cloud
// metadata, and the other IANA special-purpose ranges, IPv4 and IPv6); allowPrivate lets
// loopback and private (RFC 1918, ULA) destinations through, never link-local or cloud
// metadata. The check runs on the resolved address of each connection, so a name that
// resolves to a public address when configured and to a private one later (DNS rebinding)
// is still refused. The addresses of self are let through whatever they are: the server's
// own listener, for the demo's receiver (serve --demo), and nothing else on its host.
func NewWebhookClient(version string, allowPrivate bool, self ...netip.AddrPort) *WebhookClient {
	return newWebhookClient(version, webhookGuard(allowPrivate, self...), nil)
}

// NewFetchClient returns the client that fetches recordings from the phone system's media
// URLs: the same dial-time guard as deliveries (no private, loopback or metadata address
// unless allowPrivate), redirects followed (each hop is guarded too, and net/http drops
// the Authorization header when one leads to another host), and no overall time-out, since
// a long recording takes a while: the response headers must come within
// DefaultWebhookTimeout, and the caller's context bounds the rest.
func NewFetchClient(version string, allowPrivate bool) *http.Client {
	c := newWebhookClient(version, webhookGuard(allowPrivate), nil)
	return &http.Client{Transport: &userAgent{next: c.transport, value: c.userAgent}}
}

// userAgent sets the User-Agent of every request.
type userAgent struct {
	next  http.RoundTripper
	value string
}

func (u *userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.value)
	return u.next.RoundTrip(r)
}

// privatePrefixes are the destinations --dispatch-allow-private lets through: loopback and
// private networks, where a test receiver or a service on one's own network listens.
var privatePrefixes = struct{ v4, v6 []netip.Prefix }{
	v4: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("192.168.0.0/16")},
	v6: []netip.Prefix{netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fc00::/7")},
}

// metadataPrefixes are cloud metadata services inside the private ranges (AWS's IPv6
// instance metadata is a ULA address): refused even when private destinations are allowed.
var metadataPrefixes = []netip.Prefix{netip.MustParsePrefix("fd00:ec2::/32")}

// webhookGuard returns the net.Dialer Control refusing non-public addresses (with
// allowPrivate, those outside privatePrefixes, and metadataPrefixes). Any port is allowed:
// customer endpoints are not limited to 80 and 443.
func webhookGuard(allowPrivate bool, self ...netip.AddrPort) func(network, address string, _ syscall.RawConn) error {
	opts := []ssrf.Option{ssrf.WithAnyPort()}
	if allowPrivate {
		opts = append(opts, ssrf.WithAllowedV4Prefixes(privatePrefixes.v4...), ssrf.WithAllowedV6Prefixes(privatePrefixes.v6...))
	}
	g := ssrf.New(opts...)
	return func(network, address string, c syscall.RawConn) error {
		if ap, err := netip.ParseAddrPort(address); err == nil && slices.Contains(self, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())) {
			return nil
		}
		err := g.Safe(network, address, c)
		if ap, perr := netip.ParseAddrPort(address); err == nil && perr == nil {
			for _, p := range metadataPrefixes {
				if p.Contains(ap.Addr()) {
					err = fmt.Errorf("%s is a cloud metadata address", ap.Addr())
				}
			}
		}
		if err != nil {
			return fmt.Errorf("%w: %w: %w", ErrWebhookRefused, errAddressBlocked, err)
		}
		return nil
	}
}

// newWebhookClient builds the client around control (nil: no guard) and resolver (nil: the
// system's); tests pass their own to keep every packet on loopback.
func newWebhookClient(version string, control func(network, address string, _ syscall.RawConn) error,
	resolver *net.Resolver) *WebhookClient {
	dialer := &net.Dialer{
		Timeout:   DefaultWebhookTimeout,
		KeepAlive: 30 * time.Second,
		Resolver:  resolver,
		Control:   control,
	}
	transport := &http.Transport{
		// Never a proxy: the guard would check the proxy's address, not the endpoint's.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    DefaultWebhookTimeout,
		ResponseHeaderTimeout:  DefaultWebhookTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    32, // as many as may be in use, or each batch reconnects (a TLS handshake each)
		MaxConnsPerHost:        32,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &WebhookClient{
		Now:       time.Now,
		Timeout:   DefaultWebhookTimeout,
		userAgent: "answerdesk-dispatch/" + version,
		transport: transport,
		client: &http.Client{
			Transport: transport,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
	}
}

// CloseIdleConnections closes the pooled connections that are idle.
func (c *WebhookClient) CloseIdleConnections() { c.transport.CloseIdleConnections() }

func (c *WebhookClient) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Send makes one attempt: it POSTs w and returns what came back.
func (c *WebhookClient) Send(ctx context.Context, w *Webhook) WebhookResult {
	start := time.Now()
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultWebhookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	req, err := c.newRequest(ctx, w)
	if err != nil {
		return WebhookResult{Err: err, Summary: summarizeWebhookError(err, w.URL, timeout), Duration: time.Since(start)}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return WebhookResult{Err: err, Summary: summarizeWebhookError(err, w.URL, timeout), Duration: time.Since(start)}
	}
	r := WebhookResult{StatusCode: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), c.now())}
	// A body cut short (timeout, reset) still leaves the status, which is what counts.
	head, _ := io.ReadAll(io.LimitReader(resp.Body, webhookExcerptSize))
	r.Excerpt = utf8Excerpt(head, webhookExcerptSize)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, webhookDrainSize))
	_ = resp.Body.Close()
	r.Duration = time.Since(start)
	return r
}

// summarizeWebhookError describes a failed attempt as a category and the host of the
// configured URL. The text of err is never used: Go's network errors name the resolver
// ("lookup x on 10.0.0.2:53") and the resolved addresses ("dial tcp 127.0.0.1:8080"), which
// are the service's internals, not the customer's to see.
func summarizeWebhookError(err error, rawURL string, timeout time.Duration) string {
	host := "the endpoint"
	if u, perr := url.Parse(rawURL); perr == nil && u.Host != "" {
		host = u.Host
	}
	var (
		dnsErr      *net.DNSError
		unknownCA   x509.UnknownAuthorityError
		hostnameErr x509.HostnameError
		invalidCert x509.CertificateInvalidError
		recordErr   tls.RecordHeaderError
		alertErr    tls.AlertError
		certErr     *tls.CertificateVerificationError
		netErr      net.Error
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errAddressBlocked):
		return "blocked: " + host + " resolves to a private, loopback or reserved address, which deliveries may not reach"
	case errors.Is(err, ErrWebhookRefused):
		return "blocked: the URL's scheme is not http or https"
	case errors.Is(err, ErrWebhookInvalid):
		return "invalid: " + invalidReason(err)
	case errors.As(err, &dnsErr):
		switch {
		case dnsErr.IsNotFound:
			return "dns: no such host " + host
		case dnsErr.IsTimeout:
			return "dns: lookup timed out for " + host
		}
		return "dns: lookup failed for " + host
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("timeout after %s waiting for %s", timeout, host)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connect: refused by " + host
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connect: connection reset by " + host
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "connect: " + host + " is unreachable"
	case errors.As(err, &hostnameErr):
		return "tls: the certificate of " + host + " is not valid for that name"
	case errors.As(err, &unknownCA):
		return "tls: the certificate of " + host + " is signed by an unknown authority"
	case errors.As(err, &invalidCert):
		return "tls: the certificate of " + host + " is invalid (expired, not yet valid or not for a server)"
	case errors.As(err, &certErr):
		return "tls: the certificate of " + host + " could not be verified"
	case errors.As(err, &recordErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http replaces the tls.RecordHeaderError with that unwrapped message.
		return "tls: " + host + " did not answer with TLS (is the URL http rather than https?)"
	case errors.As(err, &alertErr):
		return "tls: the handshake with " + host + " failed"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "http: " + host + " closed the connection without an answer"
	}
	return "network: the request to " + host + " failed"
}

// invalidReason is what made a webhook unsendable as configured, in the customer's terms.
func invalidReason(err error) string {
	switch {
	case errors.Is(err, errInvalidURL):
		return "the URL cannot be parsed or has no host"
	case errors.Is(err, errInvalidHeader):
		return "a configured header is malformed"
	case errors.Is(err, errInvalidSecret):
		return "the signing secret is not valid"
	}
	return "the request cannot be built from the method's configuration"
}

// Reasons of ErrWebhookInvalid, for summarizeWebhookError.
var (
	errInvalidURL    = errors.New("bad url")
	errInvalidHeader = errors.New("bad header")
	errInvalidSecret = errors.New("bad signing secret")
)

// newRequest renders w as an http.Request; its errors wrap ErrWebhookRefused or
// ErrWebhookInvalid.
func (c *WebhookClient) newRequest(ctx context.Context, w *Webhook) (*http.Request, error) {
	u, err := url.Parse(w.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %w", ErrWebhookInvalid, errInvalidURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: scheme %q is not http or https", ErrWebhookRefused, u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %w: url %q has no host", ErrWebhookInvalid, errInvalidURL, w.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytesReader(w.Body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %w", ErrWebhookInvalid, errInvalidURL, err)
	}
	ct := w.ContentType
	if ct == "" {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	for name, value := range w.Headers {
		if answerdesk.ReservedHeader(name) {
			continue
		}
		if !answerdesk.ValidHeaderName(name) || !answerdesk.ValidHeaderValue(value) {
			return nil, fmt.Errorf("%w: %w: header %q is malformed", ErrWebhookInvalid, errInvalidHeader, name)
		}
		req.Header.Set(name, value)
	}
	if w.BasicUser != "" && w.BasicPass != "" {
		req.SetBasicAuth(w.BasicUser, w.BasicPass) // the configured credentials win
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Idempotency-Key", w.ID)
	if w.SigningSecret != "" {
		ts := c.now().Unix()
		sig, err := SignWebhook(w.SigningSecret, w.ID, ts, w.Body)
		if err != nil {
			return nil, err
		}
		req.Header.Set("webhook-id", w.ID)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		req.Header.Set("webhook-signature", sig)
	}
	return req, nil
}

// bytesReader gives NewRequest a body whose length it knows and that it can rewind, or none
// for an empty one.
func bytesReader(b []byte) io.Reader {
	if len(b) == 0 {
		return http.NoBody
	}
	return bytes.NewReader(b)
}

// parseRetryAfter reads a Retry-After value, delay-seconds or an HTTP-date relative to now.
// It returns 0 when v is absent, invalid or in the past, and at most maxRetryAfter.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if strings.Trim(v, "0123456789") == "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter // all digits, so only too large to parse
		}
		d = time.Duration(n) * time.Second
	} else {
		t, err := http.ParseTime(v)
		if err != nil {
			return 0
		}
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// utf8Excerpt returns b as valid UTF-8 of at most max bytes: a rune cut at the end is
// dropped, other invalid bytes become U+FFFD.
func utf8Excerpt(b []byte, max int) string {
	// Drop a trailing incomplete rune (at most utf8.UTFMax-1 bytes) so it is not replaced.
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				b = b[:len(b)-i]
			}
			break
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	for len(s) > max { // replacements can lengthen it
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// SignWebhook returns the Standard Webhooks webhook-signature value "v1,<sig>", sig being the
// base64 HMAC-SHA256 of "id.timestamp.body" keyed with the base64-decoded part of secret after
// "whsec_" (the prefix is optional, as in the reference implementations).
func SignWebhook(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, webhookSecretPrefix))
	if err != nil {
		return "", fmt.Errorf("%w: %w: signing secret is not base64: %w", ErrWebhookInvalid, errInvalidSecret, err)
	}
	if len(key) == 0 {
		return "", fmt.Errorf("%w: %w: signing secret is empty", ErrWebhookInvalid, errInvalidSecret)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, timestamp, 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
