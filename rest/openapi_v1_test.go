package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/answerdesk/answerdesk/internal/testdb"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/content"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/public"
	"github.com/answerdesk/answerdesk/ratelimit"
	"github.com/answerdesk/answerdesk/search"
	"github.com/answerdesk/answerdesk/store"
	"github.com/go-chi/chi/v5"
)

// These tests keep rest/openapi/v1.json, the document of the public API, honest: every
// route of /api/v1 and /api/sandbox/v1 is documented and nothing else is, the document is
// structurally sound, its schemas name the properties of the Go types the handlers encode
// and the limits the code validates, real responses of both servers (bodies, status codes
// and headers) match what it documents, and it is served byte for byte.
//
// Paths in the document are relative to its servers: /api/v1 and the sandbox /api/sandbox/v1.

const openAPIV1File = "openapi/v1.json"

const (
	v1Prefix      = "/api/v1"
	sandboxPrefix = "/api/sandbox/v1"
)

// loadOpenAPIV1 parses the document on disk (the same bytes the binary embeds).
func loadOpenAPIV1(t *testing.T) map[string]any {
	t.Helper()
	return oaLoad(t, openAPIV1)
}

// v1Sites loads the fixture site and the sandbox's fixed data.
func v1Sites(t *testing.T) (site, sandbox *content.Site) {
	t.Helper()
	site, err := content.Load(os.DirFS("../content/testdata/site"))
	if err != nil {
		t.Fatal(err)
	}
	sandbox, err = content.Load(content.Sandbox())
	if err != nil {
		t.Fatal(err)
	}
	return site, sandbox
}

// v1RoutePattern normalizes a route for comparison: chi's mount marker removed and path
// parameter names dropped ({jobID} in the router is {jobId} in the document).
var v1ParamName = regexp.MustCompile(`\{[^{}]*\}`)

func v1RoutePattern(route string) string {
	for strings.Contains(route, "/*/") {
		route = strings.ReplaceAll(route, "/*/", "/")
	}
	if len(route) > 1 {
		route = strings.TrimSuffix(route, "/")
	}
	return v1ParamName.ReplaceAllString(route, "{}")
}

// v1RouterRoutes walks the real router h (srv.Handler()) and returns, per prefix (/api/v1 and
// /api/sandbox/v1), "METHOD /path" (relative to the prefix, parameters as {}) of every
// route, HEAD and OPTIONS aside. The operations router is mounted at "/" inside each
// prefix; chi.Walk descends into it (reporting /api/v1/*/company), and the operations
// routers are walked directly as well, so a mount Walk could not see into is still covered.
func v1RouterRoutes(t *testing.T, srv *Server, h http.Handler) map[string]map[string]bool {
	t.Helper()
	routes, ok := h.(chi.Routes)
	if !ok {
		t.Fatalf("Handler() returned %T, not a chi.Routes", h)
	}
	got := map[string]map[string]bool{v1Prefix: {}, sandboxPrefix: {}}
	add := func(method, route string) {
		if method == http.MethodHead || method == http.MethodOptions {
			return
		}
		route = v1RoutePattern(route)
		for prefix, set := range got {
			rel, ok := strings.CutPrefix(route, prefix)
			if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
				continue
			}
			if rel == "/*" || strings.HasSuffix(rel, "/*") {
				t.Logf("%s %s: a mount chi.Walk did not descend into; its routes come from the operations router", method, route)
				continue
			}
			set[method+" "+rel] = true
		}
	}
	walk := func(r chi.Routes, prefix string) {
		err := chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
			add(method, prefix+route)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(routes, "")
	for prefix, api := range map[string]*publicAPI{v1Prefix: srv.v1, sandboxPrefix: srv.sandboxAPI} {
		if api == nil {
			t.Fatalf("the router serves no %s", prefix)
		}
		ops, ok := api.ops.(chi.Routes)
		if !ok {
			t.Fatalf("%s: the operations router is %T, not a chi.Routes", prefix, api.ops)
		}
		walk(ops, prefix)
	}
	return got
}

// v1Documented returns "METHOD /path" (parameters as {}) of every documented operation,
// with the server URLs it applies to.
func v1Documented(doc map[string]any) map[string][]string {
	var rootServers []string
	for _, s := range doc["servers"].([]any) {
		rootServers = append(rootServers, s.(map[string]any)["url"].(string))
	}
	out := map[string][]string{}
	for path, rawItem := range oaObj(doc, "paths") {
		item := rawItem.(map[string]any)
		servers := rootServers
		if ss, ok := item["servers"].([]any); ok {
			servers = nil
			for _, s := range ss {
				servers = append(servers, s.(map[string]any)["url"].(string))
			}
		}
		for _, m := range openAPIMethods {
			if _, ok := item[m]; ok {
				out[strings.ToUpper(m)+" "+v1RoutePattern(path)] = servers
			}
		}
	}
	return out
}

func TestOpenAPIV1DocumentsEveryRoute(t *testing.T) {
	doc := loadOpenAPIV1(t)
	site, sandbox := v1Sites(t)
	srv := &Server{Site: site, Sandbox: sandbox, Logger: slog.New(slog.DiscardHandler),
		Public: PublicConfig{Limiter: &ratelimit.Memory{Limit: 60, Window: time.Minute}, Limit: 60}}
	srv.Search, srv.SandboxSearch = v1Indexes(t, site, sandbox)
	routes := v1RouterRoutes(t, srv, srv.Handler())
	if len(routes[v1Prefix]) == 0 || len(routes[sandboxPrefix]) == 0 {
		t.Fatalf("walking the router found no public API routes: %v", routes)
	}
	documented := v1Documented(doc)

	for _, prefix := range []string{v1Prefix, sandboxPrefix} {
		var missing, extra []string
		for r := range routes[prefix] {
			servers, ok := documented[r]
			switch {
			case !ok:
				extra = append(extra, r)
			case !slices.Contains(servers, prefix):
				method, path, _ := strings.Cut(r, " ")
				t.Errorf("%s %s%s is routed, but the document lists it on %v only", method, prefix, path, servers)
			}
		}
		for d, servers := range documented {
			if !slices.Contains(servers, prefix) || routes[prefix][d] {
				continue
			}
			missing = append(missing, d)
		}
		sort.Strings(missing)
		sort.Strings(extra)
		if len(missing) > 0 {
			t.Errorf("operations of %s documented for %s that the router does not serve:\n  %s", openAPIV1File, prefix, strings.Join(missing, "\n  "))
		}
		if len(extra) > 0 {
			t.Errorf("routes under %s missing from %s:\n  %s", prefix, openAPIV1File, strings.Join(extra, "\n  "))
		}
	}
}

// TestOpenAPIV1IsValid checks the structure of the document (see checkOpenAPIStructure):
// paths relative to the live and sandbox servers, no credentials, every operation rate
// limited with the Idempotency-Key echo, reads conditional (304 without a body), and every
// example a valid instance of its schema.
func TestOpenAPIV1IsValid(t *testing.T) {
	checkOpenAPIStructure(t, loadOpenAPIV1(t), oaStructureOptions{
		versionPrefix: "1.",
		servers:       []string{v1Prefix, sandboxPrefix},
		specPath:      "/openapi.json",
		// 429: every operation is rate limited.
		requiredResponses:  []string{"405", "500", "429"},
		responseHeaders:    []string{"X-Request-Id"},
		requiredHeaders:    []string{"Idempotency-Key"},
		conditionalReads:   true,
		uncachedReads:      []string{"/batch/jobs/{jobId}"},
		requireRequestBody: true,
		// The operation ids the public API's docs page names.
		operationIDs: map[string]string{"getCompany": "GET /company", "listServices": "GET /services",
			"getPricing": "GET /pricing", "searchSite": "GET /search"},
		validateExamples: true,
	})
}

// v1JSONType is the JSON Schema type a Go type encodes as ("" when it varies).
func v1JSONType(typ reflect.Type) string {
	if typ == reflect.TypeFor[json.RawMessage]() {
		return ""
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return ""
}

// v1BatchError parses a batch body and returns the field its error names, "" when valid.
func v1BatchError(t *testing.T, body any) string {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	_, err = answerdesk.ParseBatch(b)
	if err == nil {
		return ""
	}
	e, ok := err.(*answerdesk.Error)
	if !ok || e.Code != answerdesk.EINVALID || len(e.Fields) != 1 {
		t.Fatalf("ParseBatch(%s) = %v, want one field error", b, err)
	}
	return e.Fields[0].Field
}

// TestOpenAPIV1SchemasMatchTypes checks that the documented schemas name exactly the
// properties (with their types) the handlers encode, and that the documented parameter and
// batch limits are the ones the code validates.
func TestOpenAPIV1SchemasMatchTypes(t *testing.T) {
	doc := loadOpenAPIV1(t)
	schemas := oaObj(oaObj(doc, "components"), "schemas")
	for name, typ := range map[string]reflect.Type{
		"Company":              reflect.TypeFor[public.Company](),
		"MailingAddress":       reflect.TypeFor[public.Address](),
		"SocialProfile":        reflect.TypeFor[public.SocialProfile](),
		"Service":              reflect.TypeFor[public.Service](),
		"Plan":                 reflect.TypeFor[public.Plan](),
		"ServicePlans":         reflect.TypeFor[public.ServicePlans](),
		"SearchResult":         reflect.TypeFor[public.Result](),
		"Error":                reflect.TypeFor[ErrorObject](),
		"FieldError":           reflect.TypeFor[answerdesk.FieldError](),
		"BatchOperation":       reflect.TypeFor[answerdesk.BatchRequest](),
		"BatchOperationResult": reflect.TypeFor[answerdesk.BatchResponse](),
	} {
		props := maps.Clone(oaSchemaProps(doc, name))
		if props == nil {
			t.Errorf("components.schemas.%s is missing", name)
			continue
		}
		// "sandbox" is not a field of the types: the sandbox's middleware adds it to bodies.
		delete(props, "sandbox")
		fields := oaMatchProps(t, name, props, typ)
		// Properties without omitempty are always encoded: required; the others are not.
		req, _ := oaObj(schemas, name)["required"].([]any)
		for f, sf := range fields {
			_, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
			omit := slices.Contains(strings.Split(opts, ","), "omitempty")
			if omit == slices.Contains(req, any(f)) {
				t.Errorf("schema %s: property %q required=%v, but %s encodes it with omitempty=%v", name, f, !omit, typ, omit)
			}
			want := v1JSONType(sf.Type)
			if want == "" {
				continue
			}
			s := oaDeref(doc, props[f])
			got := s["type"]
			if got == nil && s["properties"] != nil {
				got = "object"
			}
			// A pointer field without omitempty encodes null too: ["T", "null"].
			if pair, ok := got.([]any); ok && sf.Type.Kind() == reflect.Pointer && len(pair) == 2 && pair[1] == "null" {
				got = pair[0]
			}
			if got != want {
				t.Errorf("schema %s.%s has type %v, %s encodes %s", name, f, got, typ, want)
			}
		}
	}

	// Query parameters: names, enumerations, defaults and limits of the code (and of
	// the Public API docs page for search).
	param := func(path, name string) map[string]any { return oaQueryParam(t, doc, path, name) }
	queryParams := func(path string) []string {
		var out []string
		op := oaObj(oaObj(oaObj(doc, "paths"), path), "get")
		ps, _ := op["parameters"].([]any)
		for _, p := range ps {
			if pm := oaDeref(doc, p); pm["in"] == "query" {
				out = append(out, pm["name"].(string))
			}
		}
		sort.Strings(out)
		return out
	}
	for path, want := range map[string][]string{
		"/company": nil, "/services": nil, "/pricing": {"billingCycle", "service"},
		"/search": {"cursor", "limit", "q", "type"}, "/batch/jobs/{jobId}": nil,
	} {
		if got := queryParams(path); !slices.Equal(got, want) {
			t.Errorf("GET %s documents query parameters %v, want %v", path, got, want)
		}
	}
	strs := func(v any) []string {
		var out []string
		list, _ := v.([]any)
		for _, e := range list {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	if p := param("/pricing", "billingCycle"); p != nil {
		s := oaObj(p, "schema")
		if got := strs(s["enum"]); !slices.Equal(got, public.BillingCycles) || s["default"] != "monthly" || p["required"] == true {
			t.Errorf("billingCycle schema %v, want optional, enum %v, default monthly", s, public.BillingCycles)
		}
	}
	if got := strs(oaObj(oaSchemaProps(doc, "Pricing"), "billingCycle")["enum"]); !slices.Equal(got, public.BillingCycles) {
		t.Errorf("Pricing.billingCycle enum %v, want %v", got, public.BillingCycles)
	}
	if p := param("/search", "q"); p != nil && (p["required"] != true || oaObj(p, "schema")["maxLength"] != 200.0) {
		t.Errorf("search q %v: want required, maxLength 200", p)
	}
	if p := param("/search", "limit"); p != nil {
		s := oaObj(p, "schema")
		if s["type"] != "integer" || s["minimum"] != 1.0 || s["maximum"] != 50.0 || s["default"] != 10.0 {
			t.Errorf("search limit schema %v, want integer 1..50 default 10", s)
		}
	}
	param("/search", "cursor")
	if p := param("/search", "type"); p != nil {
		if got := strs(oaObj(p, "schema")["enum"]); !slices.Equal(got, content.Types) {
			t.Errorf("search type enum %v, want %v", got, content.Types)
		}
	}
	if got := strs(oaObj(oaSchemaProps(doc, "SearchResult"), "type")["enum"]); !slices.Equal(got, content.Types) {
		t.Errorf("SearchResult.type enum %v, want %v", got, content.Types)
	}
	if got := oaKeys(oaSchemaProps(doc, "SearchResult")); !slices.Equal(got, []string{"highlight", "markdownUrl", "summary", "title", "type", "updatedAt", "url"}) {
		t.Errorf("SearchResult properties %v (the Public API docs page)", got)
	}
	if got := oaKeys(oaSchemaProps(doc, "SearchResults")); !slices.Equal(got, []string{"nextCursor", "query", "results", "sandbox"}) {
		t.Errorf("SearchResults properties %v (the Public API docs page)", got)
	}
	if nc := strs(oaObj(oaSchemaProps(doc, "SearchResults"), "nextCursor")["type"]); !slices.Equal(nc, []string{"string", "null"}) {
		t.Errorf("SearchResults.nextCursor type %v, want string or null", nc)
	}

	// Error codes: exactly the ones the public API answers, each with a default hint (so
	// documented on /docs/errors, see TestEveryErrorCodeIsDocumented).
	_, codeProcessing := errorStatus(answerdesk.EPROCESSING) // a batch body that is not JSON
	codes := []string{codeInvalidParam, codeMissingParam, codeProcessing, codeNoRoute, codeMethodNotAllowed, codePayloadTooLarge,
		codeRateLimited, codeJobNotFound, codeInternal}
	if got := strs(oaObj(oaSchemaProps(doc, "Error"), "code")["enum"]); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(codes))) {
		t.Errorf("Error.code enum %v, want %v", got, codes)
	}
	for _, c := range codes {
		if defaultHints[c] == "" {
			t.Errorf("error code %s has no default hint", c)
		}
	}

	// The batch body: the documented limits are the parser's.
	op := func(id string, extra map[string]any) map[string]any {
		o := map[string]any{"id": id, "method": "GET", "path": "/company"}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	ops := func(n int) map[string]any {
		list := make([]any, n)
		for i := range list {
			list[i] = op(fmt.Sprint("op", i), nil)
		}
		return map[string]any{"requests": list}
	}
	one := func(extra map[string]any) map[string]any { return map[string]any{"requests": []any{op("a", extra)}} }
	num := func(s map[string]any, k string) int { return oaNum(t, s, k) }
	reqs := oaObj(oaSchemaProps(doc, "BatchRequest"), "requests")
	if lo, hi := num(reqs, "minItems"), num(reqs, "maxItems"); hi != answerdesk.MaxBatchRequests ||
		v1BatchError(t, ops(lo-1)) == "" || v1BatchError(t, ops(lo)) != "" || v1BatchError(t, ops(hi)) != "" || v1BatchError(t, ops(hi+1)) == "" {
		t.Errorf("BatchRequest.requests minItems %d maxItems %d are not the parser's limits (%d)", lo, hi, answerdesk.MaxBatchRequests)
	}
	bop := oaSchemaProps(doc, "BatchOperation")
	id := oaObj(bop, "id")
	if lo, hi := num(id, "minLength"), num(id, "maxLength"); v1BatchError(t, one(map[string]any{"id": strings.Repeat("i", lo-1)})) == "" ||
		v1BatchError(t, one(map[string]any{"id": strings.Repeat("i", hi)})) != "" || v1BatchError(t, one(map[string]any{"id": strings.Repeat("i", hi+1)})) == "" {
		t.Errorf("BatchOperation.id minLength %d maxLength %d are not the parser's limits", lo, hi)
	}
	if v1BatchError(t, map[string]any{"requests": []any{op("a", nil), op("a", nil)}}) != "requests[1].id" {
		t.Error("a repeated id is accepted")
	}
	if c := oaObj(bop, "method")["const"]; c != "GET" {
		t.Errorf("BatchOperation.method const %v, want GET", c)
	}
	for _, m := range []string{"GET", "get", "POST", "HEAD", ""} {
		if ok := v1BatchError(t, one(map[string]any{"method": m})) == ""; ok != (m == "GET") {
			t.Errorf("method %q: accepted %v", m, ok)
		}
	}
	path := oaObj(bop, "path")
	pathPattern := regexp.MustCompile(path["pattern"].(string))
	maxPath := num(path, "maxLength")
	for _, p := range []string{"/company", "/pricing", "/search", "/a/b-c_d.e", "/" + strings.Repeat("a", maxPath-1), "/" + strings.Repeat("a", maxPath),
		"company", "", "/company?x=1", "/x#y", "/%41", `/a\b`, "//x", "/a//b", "/../v2/messages", "/./company", "/batch", "/batch/jobs/x"} {
		accepted := v1BatchError(t, one(map[string]any{"path": p})) == ""
		if accepted && (!pathPattern.MatchString(p) || len(p) > maxPath) {
			t.Errorf("path %q is accepted by the parser but outside the documented pattern or maxLength", p)
		}
		if !accepted && pathPattern.MatchString(p) && len(p) <= maxPath {
			// Refusals the pattern cannot express must be described.
			desc, _ := path["description"].(string)
			var rule string
			switch {
			case strings.Contains(p, "//"):
				rule = "empty"
			case strings.Contains(p, ".."), strings.Contains(p, "/./"):
				rule = ".."
			case strings.HasPrefix(p, "/batch"):
				rule = "/batch"
			default:
				t.Errorf("path %q matches the documented pattern but the parser refuses it", p)
				continue
			}
			if !strings.Contains(desc, rule) {
				t.Errorf("path %q is refused, but BatchOperation.path's description does not mention %q", p, rule)
			}
		}
	}
	query := oaObj(bop, "query")
	params := func(n int) map[string]any { return oaNProps("p", n) }
	if hi := num(query, "maxProperties"); v1BatchError(t, one(map[string]any{"query": params(hi)})) != "" || v1BatchError(t, one(map[string]any{"query": params(hi + 1)})) == "" {
		t.Errorf("BatchOperation.query maxProperties %d is not the parser's limit", hi)
	}
	if oaObj(query, "additionalProperties")["type"] != "string" || v1BatchError(t, one(map[string]any{"query": map[string]any{"limit": 5}})) == "" {
		t.Error("BatchOperation.query values: documented as strings, and the parser must refuse others")
	}
	// The documented example batch parses.
	for i, ex := range oaObj(schemas, "BatchRequest")["examples"].([]any) {
		if f := v1BatchError(t, ex); f != "" {
			t.Errorf("BatchRequest example %d is refused at %s", i, f)
		}
	}
}

// v1CheckedHeaders are the response headers whose presence the document must explain.
var v1CheckedHeaders = []string{"ETag", "Cache-Control", "Location", "Preference-Applied", "Retry-After", "Allow",
	"RateLimit-Policy", "RateLimit", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
	"Idempotency-Key", "Deprecation", "Sunset", "Link", "X-Request-Id"}

// v1Env is the real router over the fixture site and the sandbox, with a rate limit,
// deprecation configured (so every optional header shows), a batch job store and a clock.
type v1Env struct {
	t      *testing.T
	doc    map[string]any
	srv    *Server
	h      http.Handler
	now    time.Time
	runner *dispatch.BatchRunner
	jobs   *store.BatchJobs
	routes map[string]map[string]bool
	client int
}

// v1TestLimit is the requests per minute of the test limiter: a batch of 10 fits.
const v1TestLimit = answerdesk.MaxBatchRequests

func newV1Env(t *testing.T) *v1Env {
	t.Helper()
	e := &v1Env{t: t, doc: loadOpenAPIV1(t), now: time.Date(2026, 11, 22, 12, 0, 20, 0, time.UTC)}
	db, err := store.Open(context.Background(), testdb.DSN(t, testdb.Engine(), "answerdesk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e.jobs = store.NewBatchJobs(db)
	site, sandbox := v1Sites(t)
	dep := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	index, sandboxIndex := v1Indexes(t, site, sandbox)
	e.srv = &Server{Site: site, Sandbox: sandbox, Jobs: e.jobs, BaseURL: "https://api.example.com", Search: index, SandboxSearch: sandboxIndex,
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return e.now },
		Public: PublicConfig{Limiter: &ratelimit.Memory{Limit: v1TestLimit, Window: time.Minute}, Limit: v1TestLimit,
			DeprecatedAt: dep, SunsetAt: dep.AddDate(1, 0, 0)}}
	e.h = e.srv.Handler()
	e.routes = v1RouterRoutes(t, e.srv, e.h)
	e.runner = &dispatch.BatchRunner{Store: e.jobs, Execute: e.srv.ExecuteBatch, Now: func() time.Time { return e.now },
		Logger: slog.New(slog.DiscardHandler)}
	return e
}

// do sends a request from a client of its own (so the rate limit does not interfere), or
// from client when given.
func (e *v1Env) do(method, target, body string, header map[string]string, client string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if client == "" {
		e.client++
		client = fmt.Sprintf("10.%d.%d.%d", e.client>>16&255, e.client>>8&255, e.client&255)
	}
	req.RemoteAddr = client + ":40000"
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// check compares a response with the document's response for that status on the operation
// method docPath (served under prefix): the status is documented, the body is a valid
// instance of the documented schema (strictly), the headers in v1CheckedHeaders that came
// are documented, and the documented required ones came. It returns the decoded body.
func (e *v1Env) check(prefix, method, docPath string, rec *httptest.ResponseRecorder, what string) any {
	t := e.t
	t.Helper()
	at := fmt.Sprintf("%s %s%s (%s): %d", method, prefix, docPath, what, rec.Code)
	item := oaObj(oaObj(e.doc, "paths"), docPath)
	op := oaObj(item, strings.ToLower(method))
	if op == nil {
		t.Errorf("%s: the document has no operation %s %s", at, method, docPath)
		return nil
	}
	resp := oaDeref(e.doc, oaObj(op, "responses")[strconv.Itoa(rec.Code)])
	if resp == nil {
		t.Errorf("%s: status %d is not documented; body %s", at, rec.Code, rec.Body.String())
		return nil
	}
	documented := oaObj(resp, "headers")
	for _, name := range v1CheckedHeaders {
		values := rec.Header().Values(name)
		h := oaDeref(e.doc, documented[name])
		switch {
		case len(values) > 0 && h == nil:
			t.Errorf("%s: header %s: %q is sent but not documented", at, name, values)
		case len(values) == 0 && h != nil && h["required"] == true:
			t.Errorf("%s: documented required header %s is missing", at, name)
		case len(values) > 0:
			hs := oaObj(h, "schema")
			var v any = strings.Join(values, ", ")
			if hs["type"] == "integer" {
				n, err := strconv.Atoi(values[0])
				if err != nil {
					t.Errorf("%s: header %s %q is not an integer", at, name, values[0])
					continue
				}
				v = float64(n)
			}
			for _, msg := range oaValidate(e.doc, hs, v, at+" header "+name) {
				t.Error(msg)
			}
		}
	}
	for name := range documented {
		if !slices.Contains(v1CheckedHeaders, name) {
			t.Errorf("%s: documented header %s is not in v1CheckedHeaders; add it so the test checks it", at, name)
		}
	}
	media := oaObj(oaObj(resp, "content"), "application/json")
	if media == nil {
		if rec.Body.Len() != 0 {
			t.Errorf("%s: documented without a body, got %q", at, rec.Body.String())
		}
		return nil
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json", at, ct)
	}
	var body any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Errorf("%s: body is not JSON: %v: %s", at, err, rec.Body.String())
		return nil
	}
	for _, msg := range oaValidate(e.doc, media["schema"], body, at) {
		t.Error(msg)
	}
	if obj, ok := body.(map[string]any); ok && docPath != "/openapi.json" {
		if sb, has := obj["sandbox"]; (prefix == sandboxPrefix) != has || (has && sb != true) {
			t.Errorf("%s: sandbox = %v (present %v), want true exactly on %s", at, sb, has, sandboxPrefix)
		}
	}
	return body
}

// TestOpenAPIV1ResponsesMatchDocument sends the requests of every documented outcome to
// both servers and checks each response against the document.
func TestOpenAPIV1ResponsesMatchDocument(t *testing.T) {
	e := newV1Env(t)
	errorSchema := map[string]any{"$ref": "#/components/schemas/Error"}
	for _, prefix := range []string{v1Prefix, sandboxPrefix} {
		t.Run(strings.ReplaceAll(prefix, "/", "_"), func(t *testing.T) {
			e.t = t
			get := func(docPath, target string, header map[string]string, what string) (*httptest.ResponseRecorder, any) {
				rec := e.do(http.MethodGet, prefix+target, "", header, "")
				return rec, e.check(prefix, http.MethodGet, docPath, rec, what)
			}
			status := func(rec *httptest.ResponseRecorder, want int, code string, body any) {
				t.Helper()
				if rec.Code != want {
					t.Errorf("status %d, want %d %s: %s", rec.Code, want, code, rec.Body.String())
				}
				if code != "" {
					if m, _ := body.(map[string]any); m == nil || m["code"] != code {
						t.Errorf("status %d: body %v, want code %s", rec.Code, body, code)
					}
				}
			}

			// Reads, their caching and the Idempotency-Key echo.
			rec, _ := get("/company", "/company", map[string]string{"Idempotency-Key": "k-1"}, "company")
			status(rec, 200, "", nil)
			if rec.Header().Get("Idempotency-Key") != "k-1" {
				t.Errorf("Idempotency-Key not echoed: %v", rec.Header())
			}
			rec2, _ := get("/company", "/company", map[string]string{"If-None-Match": rec.Header().Get("ETag")}, "If-None-Match")
			status(rec2, 304, "", nil)
			rec, services := get("/services", "/services", nil, "services")
			status(rec, 200, "", nil)
			slug := "live-answering"
			if list, _ := services.(map[string]any)["services"].([]any); len(list) > 0 {
				slug = list[len(list)-1].(map[string]any)["slug"].(string)
			}
			for _, q := range []string{"", "?billingCycle=monthly", "?billingCycle=annual", "?service=" + slug, "?billingCycle=annual&service=" + slug} {
				rec, _ := get("/pricing", "/pricing"+q, nil, "pricing"+q)
				status(rec, 200, "", nil)
			}
			etag := e.do(http.MethodGet, prefix+"/services", "", nil, "").Header().Get("ETag")
			rec, _ = get("/services", "/services", map[string]string{"If-None-Match": `"x", W/` + etag}, "weak If-None-Match in a list")
			status(rec, 304, "", nil)

			// Bad parameters.
			for _, c := range []struct{ docPath, target string }{
				{"/pricing", "/pricing?billingCycle=weekly"}, {"/pricing", "/pricing?billingCycle="},
				{"/pricing", "/pricing?service=nope"}, {"/pricing", "/pricing?billingCycle=monthly&billingCycle=annual"},
				{"/company", "/company?verbose=1"}, {"/services", "/services?page=2"},
			} {
				rec, body := get(c.docPath, c.target, nil, c.target)
				status(rec, 400, codeInvalidParam, body)
			}

			// Methods the API does not serve: documented on the path's operation.
			for _, c := range [][3]string{
				{http.MethodPost, "/company", "/company"}, {http.MethodDelete, "/pricing", "/pricing"},
				{http.MethodGet, "/batch", "/batch"}, {http.MethodPut, "/batch/jobs/job_x", "/batch/jobs/{jobId}"},
			} {
				rec := e.do(c[0], prefix+c[1], "", nil, "")
				op := http.MethodGet
				if c[2] == "/batch" {
					op = http.MethodPost
				}
				body := e.check(prefix, op, c[2], rec, c[0]+" "+c[1])
				status(rec, 405, codeMethodNotAllowed, body)
			}

			// An unknown path: the error object with rest_no_route.
			rec = e.do(http.MethodGet, prefix+"/nothing", "", nil, "")
			var body any
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
			status(rec, 404, codeNoRoute, body)
			for _, msg := range oaValidate(e.doc, errorSchema, body, "unknown path") {
				t.Error(msg)
			}

			// A synchronous batch; each operation's body is a documented body.
			post := func(target, body string, header map[string]string, client, what string) (*httptest.ResponseRecorder, any) {
				rec := e.do(http.MethodPost, prefix+target, body, header, client)
				return rec, e.check(prefix, http.MethodPost, "/batch", rec, what)
			}
			ops := `{"requests":[{"id":"c","method":"GET","path":"/company"},{"id":"s","method":"GET","path":"/services"},` +
				`{"id":"p","method":"GET","path":"/pricing","query":{"billingCycle":"annual"}},{"id":"n","method":"GET","path":"/nothing"},` +
				`{"id":"b","method":"GET","path":"/pricing","query":{"cycle":"annual"}}]}`
			rec, body = post("/batch", ops, map[string]string{"Idempotency-Key": "k-2"}, "", "batch")
			status(rec, 200, "", nil)
			if m, _ := body.(map[string]any); m != nil {
				var got []string
				rs, _ := m["responses"].([]any)
				for _, r := range rs {
					got = append(got, fmt.Sprint(r.(map[string]any)["id"], ":", r.(map[string]any)["status"]))
				}
				if !slices.Equal(got, []string{"c:200", "s:200", "p:200", "n:404", "b:400"}) {
					t.Errorf("batch responses %v", got)
				}
			}

			// Refused batches.
			for name, b := range map[string]string{
				"empty":       `{"requests":[]}`,
				"eleven":      `{"requests":[` + strings.Repeat(`{"id":"x","method":"GET","path":"/company"},`, 10) + `{"id":"y","method":"GET","path":"/company"}]}`,
				"post":        `{"requests":[{"id":"a","method":"POST","path":"/company"}]}`,
				"nested":      `{"requests":[{"id":"a","method":"GET","path":"/batch"}]}`,
				"query value": `{"requests":[{"id":"a","method":"GET","path":"/pricing","query":{"limit":5}}]}`,
			} {
				rec, body := post("/batch", b, nil, "", name)
				status(rec, 400, codeInvalidParam, body)
			}
			rec, body = post("/batch", `{"requests":`, nil, "", "not JSON")
			status(rec, 400, "processing_error", body)
			rec, body = post("/batch?async=1", `{"requests":[{"id":"a","method":"GET","path":"/company"}]}`, nil, "", "query string")
			status(rec, 400, codeInvalidParam, body)
			rec, body = post("/batch", `{"requests":[{"id":"`+strings.Repeat("x", 65<<10)+`"}]}`, nil, "", "over 64 KiB")
			status(rec, 413, codePayloadTooLarge, body)

			// An asynchronous batch: 202 with Location, then the job: 202 pending, 200 done,
			// 400 with a query string, 404 for another server's or an unknown job.
			rec, body = post("/batch", ops, map[string]string{"Prefer": "respond-async"}, "", "async")
			status(rec, 202, "", nil)
			loc := rec.Header().Get("Location")
			jobID, _ := body.(map[string]any)["jobId"].(string)
			if loc != prefix+"/batch/jobs/"+jobID || jobID == "" {
				t.Fatalf("Location %q for job %q", loc, jobID)
			}
			rec, body = get("/batch/jobs/{jobId}", "/batch/jobs/"+jobID, nil, "pending job")
			status(rec, 202, "", nil)
			if m, _ := body.(map[string]any); m["status"] != answerdesk.BatchPending || m["jobId"] != jobID {
				t.Errorf("pending job %v", body)
			}
			if n, err := e.runner.Tick(context.Background()); err != nil || n != 1 {
				t.Fatalf("runner: %d %v", n, err)
			}
			rec, body = get("/batch/jobs/{jobId}", "/batch/jobs/"+jobID, nil, "done job")
			status(rec, 200, "", nil)
			if rs, _ := body.(map[string]any)["responses"].([]any); len(rs) != 5 {
				t.Errorf("done job %v", body)
			}
			rec, body = get("/batch/jobs/{jobId}", "/batch/jobs/"+jobID+"?wait=1", nil, "job with a query string")
			status(rec, 400, codeInvalidParam, body)
			other := sandboxPrefix
			if prefix == sandboxPrefix {
				other = v1Prefix
			}
			rec = e.do(http.MethodGet, other+"/batch/jobs/"+jobID, "", nil, "")
			body = e.check(other, http.MethodGet, "/batch/jobs/{jobId}", rec, "job of the other server")
			status(rec, 404, codeJobNotFound, body)
			rec, body = get("/batch/jobs/{jobId}", "/batch/jobs/job_AAAAAAAAAAAAAAAAAAAAAA", nil, "unknown job")
			status(rec, 404, codeJobNotFound, body)

			// The rate limit: reads and a batch over the limit are 429 with Retry-After.
			// The same client on both servers: the sandbox counts apart, so it starts afresh.
			client := "198.51.100.7"
			for i := range v1TestLimit {
				rec := e.do(http.MethodGet, prefix+"/company", "", nil, client)
				e.check(prefix, http.MethodGet, "/company", rec, "within the limit")
				status(rec, 200, "", nil)
				if rec.Header().Get("X-RateLimit-Remaining") != strconv.Itoa(v1TestLimit-1-i) {
					t.Errorf("request %d: X-RateLimit-Remaining %q", i, rec.Header().Get("X-RateLimit-Remaining"))
				}
			}
			rec = e.do(http.MethodGet, prefix+"/company", "", nil, client)
			body = e.check(prefix, http.MethodGet, "/company", rec, "over the limit")
			status(rec, 429, codeRateLimited, body)
			batchClient := "198.51.100.8"
			for range v1TestLimit - 1 {
				e.do(http.MethodGet, prefix+"/services", "", nil, batchClient)
			}
			rec, body = post("/batch", `{"requests":[{"id":"a","method":"GET","path":"/company"},{"id":"b","method":"GET","path":"/services"}]}`, nil, batchClient, "operations over the limit")
			status(rec, 429, codeRateLimited, body)

			// Search, once routed (it needs a search index).
			if e.routes[prefix]["GET /search"] {
				rec, body := get("/search", "/search", nil, "search without q")
				status(rec, 400, codeMissingParam, body)
				rec, body = get("/search", "/search?q=answer&limit=0", nil, "search limit 0")
				status(rec, 400, codeInvalidParam, body)
				rec, body = get("/search", "/search?q=answer&cursor=nope", nil, "search bad cursor")
				status(rec, 400, codeInvalidParam, body)
				rec, _ = get("/search", "/search?q=answer&limit=1", nil, "search")
				status(rec, 200, "", nil)
			} else {
				t.Errorf("GET %s/search is not routed", prefix)
			}
			if e.routes[prefix]["GET /openapi.json"] {
				rec, _ := get("/openapi.json", "/openapi.json", nil, "document")
				status(rec, 200, "", nil)
			}
		})
	}
	e.t = t

	// Jobs are kept 24 hours.
	rec := e.do(http.MethodPost, v1Prefix+"/batch", `{"requests":[{"id":"a","method":"GET","path":"/company"}]}`, map[string]string{"Prefer": "respond-async"}, "")
	loc := rec.Header().Get("Location")
	e.now = e.now.Add(answerdesk.BatchJobTTL - time.Second)
	if rec := e.do(http.MethodGet, loc, "", nil, ""); rec.Code != http.StatusAccepted {
		t.Errorf("job before 24 hours: %d", rec.Code)
	}
	e.now = e.now.Add(2 * time.Second)
	rec = e.do(http.MethodGet, loc, "", nil, "")
	body := e.check(v1Prefix, http.MethodGet, "/batch/jobs/{jobId}", rec, "job after 24 hours")
	if m, _ := body.(map[string]any); rec.Code != http.StatusNotFound || m["code"] != codeJobNotFound {
		t.Errorf("job after 24 hours: %d %v", rec.Code, body)
	}
}

func TestOpenAPIV1Served(t *testing.T) {
	// Through the router once GET /api/v1/openapi.json is mounted; until then, the handler.
	site, sandbox := v1Sites(t)
	srv := &Server{Site: site, Sandbox: sandbox, Logger: slog.New(slog.DiscardHandler)}
	h := srv.Handler()
	if !v1RouterRoutes(t, srv, h)[v1Prefix]["GET /openapi.json"] {
		t.Fatalf("GET %s/openapi.json is not routed", v1Prefix)
	}
	srvHTTP := httptest.NewServer(h)
	defer srvHTTP.Close()
	get := func(header ...string) (*http.Response, []byte) {
		t.Helper()
		hdr := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			hdr.Set(header[i], header[i+1])
		}
		return oaFetch(t, http.MethodGet, srvHTTP.URL+v1Prefix+"/openapi.json", hdr)
	}

	oaCheckServedCached(t, get, openAPIV1)
}

// v1Indexes builds the search indexes of the two sites, closed when the test ends.
func v1Indexes(t *testing.T, site, sandbox *content.Site) (*search.Index, *search.Index) {
	t.Helper()
	var out [2]*search.Index
	for i, s := range []*content.Site{site, sandbox} {
		ix, err := search.Build(s.Pages)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		out[i] = ix
	}
	return out[0], out[1]
}
