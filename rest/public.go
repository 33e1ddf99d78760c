package rest

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/public"
	"github.com/answerdesk/answerdesk/search"
	"github.com/go-chi/chi/v5"
)

// Public API error codes (the Public API docs page).
const (
	codeInvalidParam = "rest_invalid_param"
	codeMissingParam = "rest_missing_callback_param"
	codeJobNotFound  = "job_not_found"
)

func init() {
	defaultHints[codeInvalidParam] = "Check the parameter against the public API reference."
	defaultHints[codeMissingParam] = "Add the required parameter."
	defaultHints[codeJobNotFound] = "Batch jobs are kept 24 hours; send the batch again."
}

// PublicConfig configures the public API.
type PublicConfig struct {
	Limiter answerdesk.RateLimiter // nil: no limit
	// Limit is the requests per minute the limiter allows, for the RateLimit-Policy header.
	Limit int
	// TrustedProxies may set X-Forwarded-For; other clients are keyed by their address.
	TrustedProxies []netip.Prefix
	// DeprecatedAt and SunsetAt, when set, add Deprecation and Sunset headers to v1.
	DeprecatedAt, SunsetAt time.Time
}

// publicAPI serves /api/v1 or, with sandbox, /api/sandbox/v1 from a site's content.
type publicAPI struct {
	s       *Server
	site    *content.Site
	index   *search.Index // nil: /search answers 404
	sandbox bool
	bucket  string       // "api/v1" or "api/sandbox/v1": the rate-limit key prefix, so the sandbox counts apart
	ops     chi.Router   // the read operations alone
	serve   http.Handler // ops as batches run them (marked in the sandbox)
	cache   *pageCache   // encoded bodies by request (see writeCached)
}

func (s *Server) publicRoutes(prefix string, site *content.Site, index *search.Index, sandbox bool) func(chi.Router) {
	api := &publicAPI{s: s, site: site, index: index, sandbox: sandbox, bucket: prefix, cache: newPageCache(publicCacheBytes)}
	if sandbox {
		s.sandboxAPI = api
	} else {
		s.v1 = api
	}
	notFound := func(w http.ResponseWriter, r *http.Request) {
		s.writeErrorObject(w, http.StatusNotFound, codeNoRoute, "no route matches "+r.Method+" "+r.URL.Path, "", nil)
	}
	ops := chi.NewRouter()
	ops.NotFound(notFound)
	ops.MethodNotAllowed(s.methodNotAllowed)
	var batchOps, limitedOps, docOps []publicOperation
	for _, op := range v1Operations {
		switch {
		case op.id == "searchSite" && index == nil: // no index: /search is not served
		case op.route == inBatch:
			ops.Method(op.method, op.path, api.handler(op))
		case op.route == selfLimited:
			batchOps = append(batchOps, op)
		case op.route == limited:
			limitedOps = append(limitedOps, op)
		case op.route == unlimited && !sandbox: // the document is the live API's
			docOps = append(docOps, op)
		}
	}
	api.ops, api.serve = ops, ops
	if sandbox {
		api.serve = sandboxMarker(ops) // the operations inside a sandbox batch are marked too
	}
	return func(r chi.Router) {
		r.Use(limitBody(64<<10), api.headers)
		if sandbox {
			r.Use(sandboxMarker)
		}
		r.NotFound(notFound)
		r.MethodNotAllowed(s.methodNotAllowed)
		for _, op := range docOps {
			r.With(api.rateHeaders).Method(op.method, op.path, api.handler(op))
		}
		r.With(api.rateLimit).Mount("/", ops)
		for _, op := range batchOps {
			r.Method(op.method, op.path, api.handler(op)) // spends one request per operation itself
		}
		for _, op := range limitedOps {
			r.With(api.rateLimit).Method(op.method, op.path, api.handler(op))
		}
	}
}

// How an operation of the public API is routed.
const (
	inBatch     = iota // a read a batch may run: rate limited, one request each
	selfLimited        // spends the rate limit itself (POST /batch: one per operation)
	limited            // rate limited, not run in batches
	unlimited          // no limit, and served by the live API only (the document)
)

// publicOperation is an operation of the public API and how it is routed.
type publicOperation struct {
	operation
	route int
	// anyQuery: the query is not looked at (the document answers whatever it carries).
	anyQuery bool
	handle   func(*publicAPI, http.ResponseWriter, *http.Request)
}

// handler serves op: its query parameters are the declared ones (any other is a 400),
// then its handler answers.
func (a *publicAPI) handler(op publicOperation) http.HandlerFunc {
	names := op.queryNames()
	return func(w http.ResponseWriter, r *http.Request) {
		if name := badQueryText(r); name != "" {
			a.badParam(w, name, answerdesk.InvalidTextMessage)
			return
		}
		if !op.anyQuery && !a.checkParams(w, r, names...) {
			return
		}
		op.handle(a, w, r)
	}
}

// The error responses of the public API's reads.
var publicReadErrors = map[int]string{
	http.StatusNotModified: "NotModified", http.StatusBadRequest: "InvalidParam",
	http.StatusMethodNotAllowed: "MethodNotAllowed", http.StatusTooManyRequests: "RateLimited",
	http.StatusInternalServerError: "InternalError",
}

// with is errs with status answered by response component comp instead.
func with(errs map[int]string, status int, comp string) map[int]string {
	out := maps.Clone(errs)
	out[status] = comp
	return out
}

// without is errs without status.
func without(errs map[int]string, status int) map[int]string {
	out := maps.Clone(errs)
	delete(out, status)
	return out
}

// v1Operations are the operations of the public API v1 (and of its sandbox): the router
// serves them and /api/v1/openapi.json describes them (the prose is openapi/v1.json's).
var v1Operations = []publicOperation{
	{operation: operation{method: http.MethodGet, path: "/company", id: "getCompany", summary: "Get the company profile",
		bodies: okBody("Company"), errors: publicReadErrors},
		route: inBatch, handle: (*publicAPI).company},
	{operation: operation{method: http.MethodGet, path: "/services", id: "listServices", summary: "List the services",
		bodies: okBody("ServiceList"), errors: publicReadErrors},
		route: inBatch, handle: (*publicAPI).services},
	{operation: operation{method: http.MethodGet, path: "/pricing", id: "getPricing", summary: "Get the pricing plans",
		query: []queryParam{
			{name: "billingCycle", schema: map[string]any{"type": "string", "enum": public.BillingCycles, "default": public.BillingCycles[0]}},
			{name: "service", schema: map[string]any{"type": "string"}},
		},
		bodies: okBody("Pricing"), errors: publicReadErrors},
		route: inBatch, handle: (*publicAPI).pricing},
	{operation: operation{method: http.MethodGet, path: "/search", id: "searchSite", summary: "Search the site",
		// The schemas are answerdesk.ParseSearch's rule.
		query: []queryParam{
			{name: "q", required: true, schema: map[string]any{"type": "string", "minLength": 1, "maxLength": answerdesk.MaxSearchQuery}},
			{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": answerdesk.MaxSearchLimit, "default": answerdesk.DefaultSearchLimit}},
			{name: "cursor", schema: map[string]any{"type": "string", "maxLength": answerdesk.MaxSearchCursor}},
			{name: "type", schema: map[string]any{"type": "string", "enum": answerdesk.PageTypes}},
		},
		bodies: okBody("SearchResults"), errors: with(publicReadErrors, http.StatusBadRequest, "SearchBadRequest")},
		route: inBatch, handle: (*publicAPI).search},
	{operation: operation{method: http.MethodPost, path: "/batch", id: "runBatch", summary: "Run up to 10 GET operations in one request",
		bodies: map[int]string{http.StatusOK: "BatchResult", http.StatusAccepted: "BatchJobAccepted"},
		errors: with(with(without(publicReadErrors, http.StatusNotModified), http.StatusBadRequest, "BatchInvalid"), http.StatusRequestEntityTooLarge, "PayloadTooLarge")},
		route: selfLimited, handle: (*publicAPI).batch},
	{operation: operation{method: http.MethodGet, path: "/batch/jobs/{jobId}", id: "getBatchJob", summary: "Get an asynchronous batch job",
		bodies: map[int]string{http.StatusOK: "BatchResult", http.StatusAccepted: "BatchJobAccepted"},
		errors: with(without(publicReadErrors, http.StatusNotModified), http.StatusNotFound, "JobNotFound")},
		route: limited, handle: (*publicAPI).batchJob},
	{operation: operation{method: http.MethodGet, path: "/openapi.json", id: "getOpenApiDocument", summary: "Get this OpenAPI document",
		bodies: okBody(""),
		errors: map[int]string{http.StatusNotModified: "NotModified", http.StatusMethodNotAllowed: "MethodNotAllowed"}},
		route: unlimited, anyQuery: true, handle: func(_ *publicAPI, w http.ResponseWriter, r *http.Request) { serveOpenAPIV1(w, r) }},
}

// headers echoes Idempotency-Key and adds the deprecation headers when configured.
func (a *publicAPI) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get("Idempotency-Key"); k != "" && len(k) <= 255 {
			w.Header().Set("Idempotency-Key", k)
		}
		cfg := a.s.Public
		if !cfg.DeprecatedAt.IsZero() {
			w.Header().Set("Deprecation", "@"+strconv.FormatInt(cfg.DeprecatedAt.Unix(), 10))
			w.Header().Add("Link", fmt.Sprintf(`<%s/docs/versioning>; rel="deprecation"; type="text/html"`, a.s.BaseURL))
		}
		if !cfg.SunsetAt.IsZero() {
			w.Header().Set("Sunset", cfg.SunsetAt.UTC().Format(http.TimeFormat))
		}
		next.ServeHTTP(w, r)
	})
}

// ClientAddress is the address a client is limited by: the peer, or with a trusted proxy
// (PublicConfig.TrustedProxies) the right-most untrusted address of X-Forwarded-For. The
// sign-in throttle counts by it too.
func (s *Server) ClientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	trusted := s.trusted
	if !trusted(addr) {
		return addr.Unmap().String()
	}
	hops := strings.Split(r.Header.Get("X-Forwarded-For"), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		addr = ip
		if !trusted(ip) {
			break
		}
	}
	return addr.Unmap().String()
}

// trusted reports whether ip is one of the trusted proxies.
func (s *Server) trusted(ip netip.Addr) bool {
	return slices.ContainsFunc(s.Public.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(ip.Unmap()) })
}

// trustedPeer reports whether the request's peer (not the forwarded client) is a trusted proxy.
func (s *Server) trustedPeer(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && s.trusted(addr)
}

// ClientKey is the key a request's client is counted under by every per-client limit:
// ClientAddress, with IPv6 cut to its /64 (answerdesk.ClientKey).
func (s *Server) ClientKey(r *http.Request) string {
	return answerdesk.ClientKey(s.ClientAddress(r))
}

// rateLimit spends one request per call (a batch spends one per operation, in batch) and
// writes the rate-limit headers on every response.
func (a *publicAPI) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.spend(w, r, 1) {
			next.ServeHTTP(w, r)
		}
	})
}

// rateHeaders writes the rate-limit headers of the client's allowance without spending
// any of it (a spend of 0, which a client over the limit is allowed too): the OpenAPI
// document is not limited, but every public response carries them (the Public API docs page).
func (a *publicAPI) rateHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.spend(w, r, 0) {
			next.ServeHTTP(w, r)
		}
	})
}

// spend takes n requests of the client's allowance and writes the rate-limit headers; when
// the client is over the limit it answers 429 and returns false.
func (a *publicAPI) spend(w http.ResponseWriter, r *http.Request, n int) bool {
	d, err := a.take(w, r, n)
	if err != nil {
		a.s.Error(w, r, err)
		return false
	}
	if !d.Allowed {
		a.tooMany(w, d)
		return false
	}
	return true
}

// take takes n requests of the client's allowance and writes the rate-limit headers; with
// no limit configured every request is allowed.
func (a *publicAPI) take(w http.ResponseWriter, r *http.Request, n int) (answerdesk.RateDecision, error) {
	if a.s.Public.Limiter == nil || a.s.Public.Limit <= 0 {
		return answerdesk.RateDecision{Allowed: true}, nil
	}
	d, err := a.s.Public.Limiter.Take(r.Context(), answerdesk.RateKey(a.bucket, a.s.ClientKey(r)), n, a.s.Now())
	if err != nil {
		return d, fmt.Errorf("rate limiter: %w", err)
	}
	a.writeRateHeaders(w, d)
	return d, nil
}

// resetSeconds is the wait until the client's allowance starts afresh, in whole seconds
// rounded up (RateLimit's t, X-RateLimit-Reset and Retry-After).
func resetSeconds(d answerdesk.RateDecision) int {
	return int((d.Reset + time.Second - 1) / time.Second)
}

func (a *publicAPI) writeRateHeaders(w http.ResponseWriter, d answerdesk.RateDecision) {
	reset := resetSeconds(d)
	h := w.Header()
	h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=60`, d.Limit))
	h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, d.Remaining, reset))
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.Itoa(reset))
}

func (a *publicAPI) tooMany(w http.ResponseWriter, d answerdesk.RateDecision) {
	retry := resetSeconds(d)
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	a.s.writeErrorObject(w, http.StatusTooManyRequests, codeRateLimited,
		fmt.Sprintf("over the limit of %d requests per minute", d.Limit), fmt.Sprintf("Wait %d seconds, then retry.", retry), nil)
}

// badParam writes a 400 rest_invalid_param naming the parameter.
func (a *publicAPI) badParam(w http.ResponseWriter, name, msg string) {
	a.s.writeErrorObject(w, http.StatusBadRequest, codeInvalidParam, "invalid parameter "+name+": "+msg, "", nil)
}

// checkParams refuses parameters the endpoint does not know: a typo is an error, not a
// silently ignored filter.
func (a *publicAPI) checkParams(w http.ResponseWriter, r *http.Request, known ...string) bool {
	for name, vs := range r.URL.Query() {
		if !slices.Contains(known, name) {
			a.badParam(w, name, "unknown parameter; this endpoint takes "+orNone(known))
			return false
		}
		if len(vs) > 1 {
			a.badParam(w, name, "must be given once")
			return false
		}
	}
	return true
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// write encodes v (a JSON object) with "sandbox": true in the sandbox, with an ETag and
// Cache-Control, answering 304 to a matching If-None-Match.
func (a *publicAPI) write(w http.ResponseWriter, r *http.Request, v any) {
	body, etag, err := encodePublic(v)
	if err != nil {
		a.s.Error(w, r, err)
		return
	}
	writeBody(w, r, body, etag)
}

func (a *publicAPI) company(w http.ResponseWriter, r *http.Request) {
	a.writeCached(w, r, "company", func() (any, bool) { return public.CompanyOf(a.site, a.s.BaseURL), true })
}

func (a *publicAPI) services(w http.ResponseWriter, r *http.Request) {
	a.writeCached(w, r, "services", func() (any, bool) { return public.ServicesOf(a.site, a.s.BaseURL), true })
}

func (a *publicAPI) pricing(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cycle := q.Get("billingCycle")
	if q.Has("billingCycle") && cycle == "" {
		cycle = "-" // given empty: not the default
	}
	p, err := public.PricingOf(a.site, cycle, q.Get("service"))
	switch {
	case errors.Is(err, public.ErrBillingCycle):
		a.badParam(w, "billingCycle", "must be monthly or annual")
	case errors.Is(err, public.ErrUnknownService):
		a.badParam(w, "service", "no service "+answerdesk.Quote(q.Get("service"))+"; see /api/v1/services")
	case q.Has("service") && q.Get("service") == "":
		a.badParam(w, "service", "must be a service slug; see /api/v1/services")
	default:
		a.write(w, r, p)
	}
}

// searchParams are the names of /search's parameters, by the names the domain's search rule
// gives its fields.
var searchParams = map[string]string{"query": "q", "limit": "limit", "cursor": "cursor", "type": "type"}

func (a *publicAPI) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	in := answerdesk.SearchInput{Query: q.Get("q"), Cursor: q.Get("cursor"), Type: q.Get("type")}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil {
			n = -1 // not an integer: refused by the rule's own words
		}
		in.Limit = &n
	}
	ss, err := answerdesk.ParseSearch(in)
	if err != nil {
		a.s.v1Error(w, r, err, searchParams)
		return
	}
	sq := search.Query{Q: ss.Query, Limit: ss.Limit, Cursor: ss.Cursor, Type: ss.Type}
	key := fmt.Sprintf("search\x00%s\x00%s\x00%s\x00%d", sq.Q, sq.Cursor, sq.Type, sq.Limit)
	a.writeCached(w, r, key, func() (any, bool) {
		page, err := a.index.Search(r.Context(), sq)
		if err != nil {
			a.s.v1Error(w, r, err, searchParams)
			return nil, false
		}
		return public.SearchOf(ss.Query, page, a.s.BaseURL), true
	})
}
