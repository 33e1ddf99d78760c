package badinput_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/mcptest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// corpus is testdata/corpus.json.
type corpus struct {
	Malformed      []struct{ Name, Body string } `json:"malformed_bodies"`
	WrongTypes     map[string][]any              `json:"wrong_types"`
	EdgeValues     []any                         `json:"edge_values"`
	UnknownEnum    []any                         `json:"unknown_enum"`
	BadDates       []any                         `json:"bad_dates"`
	BadTimes       []any                         `json:"bad_times"`
	PathValues     []string                      `json:"path_values"`
	QueryValues    map[string][]string           `json:"query_values"`
	ContentTypes   []string                      `json:"content_types"`
	HeaderValues   []string                      `json:"header_values"`
	QueryCombos    map[string][]string           `json:"query_combos"`
	RequiredQuery  map[string]map[string]string  `json:"required_query"`
	ValidDates     []string                      `json:"valid_dates"`
	Methods        []string                      `json:"methods"`
	ValidBodies    map[string]map[string]any     `json:"valid_bodies"`
	ValidArguments map[string]map[string]any     `json:"valid_arguments"`
}

func loadCorpus(t *testing.T) *corpus {
	raw, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 1e400 and 99999999999999999999 go out as written
	var c corpus
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("testdata/corpus.json: %v", err)
	}
	return &c
}

var long = strings.Repeat("a", 100_001) // over every documented maxLength

// expand replaces the corpus placeholders in a string.
func expand(s string, seq int) string {
	return strings.NewReplacer("<LONG>", long, "<FF>", "\xff", "<NUL>", "\x00", "<SEQ>", fmt.Sprint(seq),
		"<DEEP>", strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)).Replace(s)
}

// expandValue applies expand to every string in a JSON value (a copy).
func expandValue(v any, seq int, ids map[string]string) any {
	switch v := v.(type) {
	case string:
		s := expand(v, seq)
		for k, id := range ids {
			s = strings.ReplaceAll(s, k, id)
		}
		return s
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = expandValue(e, seq, ids)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = expandValue(e, seq, ids)
		}
		return out
	}
	return v
}

// errorObject is the contract's error object (the Errors docs page).
type errorObject struct {
	Status           int    `json:"status"`
	Code             string `json:"code"`
	Message          string `json:"message"`
	Hint             string `json:"hint"`
	DocumentationURL string `json:"documentation_url"`
	Errors           []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"errors"`
}

// codes are the error codes the contract allows for each status.
var codes = map[int][]string{
	400: {"processing_error", "rest_invalid_param", "rest_missing_callback_param"},
	401: {"unauthorized"},
	403: {"forbidden"},
	404: {"not_found", "rest_no_route", "job_not_found"},
	405: {"method_not_allowed"},
	409: {"conflict"},
	413: {"payload_too_large"},
	422: {"invalid_parameter", "feature_unavailable"},
}

// harness sends requests and checks answers, counting what it covered.
type harness struct {
	t      *testing.T
	app    *testapp.App
	c      *corpus
	seq    int
	counts map[string]int
	// statuses counts the answers by kind and status, logged at the end (go test -v) to
	// show what the lenient cases (content types, HEAD, OPTIONS) actually get.
	statuses map[string]int
	last     string         // the snapshot after the last refused write, "" when something was sent since
	fails    map[string]int // failures per kind, so that one bug does not flood the log
}

func (h *harness) failf(kind, format string, args ...any) {
	h.t.Helper()
	h.fails[kind]++
	if h.fails[kind] <= 3 {
		h.t.Errorf(kind+": "+format, args...)
	}
}

type request struct {
	kind        string // what the corpus entry is, for counts and messages
	method, url string
	token       string
	body        []byte
	hasBody     bool
	contentType string
	header      http.Header
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (h *harness) send(r request) answer {
	h.t.Helper()
	var rd io.Reader
	if r.hasBody {
		rd = bytes.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, h.app.Server.URL+r.url, rd)
	if err != nil {
		h.failf(r.kind, "%s %.200s: %v", r.method, r.url, err)
		return answer{}
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	if r.hasBody {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	h.last = ""
	began := time.Now()
	resp, err := h.app.Server.Client().Do(req)
	if d := time.Since(began); d > 300*time.Millisecond {
		h.t.Logf("slow: %s %.100s: %v", r.method, r.url, d)
	}
	if err != nil {
		h.failf(r.kind, "%s %.200s: %v (is the server still up?)", r.method, r.url, err)
		return answer{}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	h.counts[r.kind]++
	h.statuses[fmt.Sprintf("%s %d", r.kind, resp.StatusCode)]++
	return answer{resp.StatusCode, resp.Header, body}
}

// check sends r and checks the answer is a client error in the error object, with a status
// in want (any 4xx when empty) and, on a 422, an errors[] entry naming field (when set).
// With lenient, a 2xx is accepted too (the value is valid for the schema: the server may
// take it). A write that is refused must leave the database as it was.
func (h *harness) check(r request, lenient bool, field string, want ...int) answer {
	h.t.Helper()
	write := r.method != http.MethodGet && r.method != http.MethodHead && r.method != http.MethodOptions
	var before string
	if write {
		before = h.before()
	}
	if len(r.body) > 64<<10 && len(want) > 0 {
		want = append(want, 413) // over the public API's body limit
	}
	a := h.send(r)
	if a.status == 0 {
		return a
	}
	what := fmt.Sprintf("%s %.120s body %.120q", r.method, r.url, r.body)
	switch {
	case a.status >= 500:
		h.failf(r.kind, "%s: status %d: %.300s", what, a.status, a.body)
		return a
	case a.status < 300 && lenient, a.status == http.StatusNotModified && r.header.Get("If-None-Match") != "":
		return a
	case a.status < 400 || a.status >= 500:
		h.failf(r.kind, "%s: status %d, want a client error: %.300s", what, a.status, a.body)
		return a
	case len(want) > 0 && !slices.Contains(want, a.status):
		h.failf(r.kind, "%s: status %d, want %v: %.300s", what, a.status, want, a.body)
	}
	if write {
		if h.last = h.snapshot(); h.last != before {
			h.failf(r.kind+" (partial write)", "%s: answered %d but the database changed", what, a.status)
		}
	}
	if r.method == http.MethodHead {
		return a
	}
	h.errorObject(r.kind, what, a, field)
	return a
}

// errorObject checks that a's body is the contract error object for its status.
func (h *harness) errorObject(kind, what string, a answer, field string) {
	h.t.Helper()
	var e errorObject
	if err := json.Unmarshal(a.body, &e); err != nil {
		h.failf(kind, "%s: status %d with a body that is not JSON: %.200s", what, a.status, a.body)
		return
	}
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "application/problem+json") {
		h.failf(kind, "%s: error with Content-Type %q", what, ct)
	}
	if e.Status != a.status || !slices.Contains(codes[a.status], e.Code) || e.Message == "" ||
		!strings.HasSuffix(e.DocumentationURL, "/docs/errors#"+e.Code) {
		h.failf(kind, "%s: status %d, error object %.300s", what, a.status, a.body)
		return
	}
	if a.status != 422 && len(e.Errors) > 0 {
		h.failf(kind, "%s: errors[] on a %d: %.300s", what, a.status, a.body)
	}
	// An error quotes at most answerdesk.MaxEcho bytes of what it was sent (<LONG> is
	// 100,001 of them), so that no input comes back whole.
	if strings.Contains(string(a.body), long[:answerdesk.MaxEcho+1]) {
		h.failf(kind+" (echo)", "%s: status %d echoes more than %d bytes of input: %.300s", what, a.status, answerdesk.MaxEcho, a.body)
	}
	if a.status == 400 && field != "" && e.Code != "processing_error" && !strings.Contains(e.Message, field) {
		h.failf(kind+" (field)", "%s: 400 message %q does not name %q", what, e.Message, field)
	}
	if a.status == 422 && field != "" {
		named := false
		for _, fe := range e.Errors {
			named = named || fieldNames(fe.Field, field)
		}
		if !named {
			h.failf(kind+" (field)", "%s: 422 errors do not name %q: %.300s", what, field, a.body)
		}
	}
}

// fieldNames reports whether an errors[].field names the property at path (dotted, as
// "schedule.times"; an array index is "[0]"): the same path, or one inside or around it.
func fieldNames(got, path string) bool {
	norm := func(s string) string {
		s = regexp.MustCompile(`\[\d+\]`).ReplaceAllString(s, "")
		return strings.TrimPrefix(s, "message.")
	}
	g, p := norm(got), norm(path)
	return g == p || strings.HasPrefix(g, p+".") || strings.HasPrefix(p, g+".") || strings.HasSuffix(g, "."+p) || strings.HasSuffix(p, "."+g)
}

// before is the snapshot before a write: the one taken after the last refused write when
// nothing was sent since (a refused write changed nothing), else a new one.
func (h *harness) before() string {
	if h.last != "" {
		return h.last
	}
	return h.snapshot()
}

// snapshot is a digest of every table's rows, but for the tables that reads and the
// machinery change (token use, rate limits, sessions, batch jobs, data versions).
func (h *harness) snapshot() string {
	db := h.app.DB.SQL()
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		rows, err = db.QueryContext(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`)
	}
	if err != nil {
		h.t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	skip := regexp.MustCompile(`^(api_tokens|rate_limits|service_meta|data_versions|batch_jobs|oauth_.*|web_sessions|mcp_.*|schema_migrations|sqlite_.*)$`)
	sum := sha256.New()
	for _, table := range tables {
		if skip.MatchString(table) {
			continue
		}
		rs, err := db.QueryContext(ctx, `SELECT * FROM `+table)
		if err != nil {
			h.t.Fatalf("snapshot %s: %v", table, err)
		}
		cols, _ := rs.Columns()
		var lines []string
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = rs.Scan(ptrs...)
			lines = append(lines, fmt.Sprintf("%v", vals))
		}
		rs.Close()
		sort.Strings(lines)
		fmt.Fprintf(sum, "%s\n%s\n", table, strings.Join(lines, "\n"))
	}
	return fmt.Sprintf("%x", sum.Sum(nil))
}

// doc is an OpenAPI document as served, with $ref resolution.
type doc struct{ root map[string]any }

func (d doc) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for i := 0; i < 10 && m != nil; i++ {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		var cur any = d.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cm, _ := cur.(map[string]any)
			cur = cm[part]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

func (h *harness) getDoc(path string) doc {
	a := h.send(request{kind: "openapi", method: "GET", url: path})
	var root map[string]any
	if err := json.Unmarshal(a.body, &root); err != nil || a.status != 200 {
		h.t.Fatalf("GET %s: %d %v", path, a.status, err)
	}
	return doc{root}
}

// operation is one documented method on one path.
type operation struct {
	api            string // "v2" or "v1"
	method, tmpl   string // tmpl is the document's path template
	prefix         string // the server URL the template is relative to
	params         []map[string]any
	body           map[string]any // the request body schema, resolved
	allowed        []string       // the path's documented methods
	token          string
	validPathParam map[string]string
}

func (op operation) key() string { return op.method + " " + op.tmpl }

// url fills the template's path parameters: override's, else the valid ones.
func (op operation) url(override map[string]string) string {
	u := op.tmpl
	for _, p := range op.params {
		if p["in"] != "path" {
			continue
		}
		name := p["name"].(string)
		v, ok := override[name]
		if !ok {
			v = op.validPathParam[name]
		}
		u = strings.ReplaceAll(u, "{"+name+"}", v)
	}
	return op.prefix + u
}

func (h *harness) operations(d doc, api string, prefixes []string, token string, pathValues map[string]func(tmpl, prefix string) string) []operation {
	var ops []operation
	paths, _ := d.root["paths"].(map[string]any)
	tmpls := make([]string, 0, len(paths))
	for k := range paths {
		tmpls = append(tmpls, k)
	}
	sort.Strings(tmpls)
	for _, tmpl := range tmpls {
		item, _ := paths[tmpl].(map[string]any)
		var shared []map[string]any
		for _, p := range asList(item["parameters"]) {
			shared = append(shared, d.resolve(p))
		}
		var allowed []string
		for m := range item {
			if slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}, m) {
				allowed = append(allowed, strings.ToUpper(m))
			}
		}
		sort.Strings(allowed)
		for _, method := range allowed {
			o, _ := item[strings.ToLower(method)].(map[string]any)
			params := slices.Clone(shared)
			for _, p := range asList(o["parameters"]) {
				params = append(params, d.resolve(p))
			}
			var body map[string]any
			if rb := d.resolve(o["requestBody"]); rb != nil {
				c, _ := rb["content"].(map[string]any)
				j, _ := c["application/json"].(map[string]any)
				body = d.resolve(j["schema"])
			}
			// An operation (or path) with servers of its own is served there only.
			opPrefixes := prefixes
			for _, over := range []any{item["servers"], o["servers"]} {
				if l := asList(over); len(l) > 0 {
					opPrefixes = nil
					for _, s := range l {
						opPrefixes = append(opPrefixes, s.(map[string]any)["url"].(string))
					}
				}
			}
			for _, prefix := range opPrefixes {
				valid := map[string]string{}
				for _, p := range params {
					if p["in"] == "path" {
						name := p["name"].(string)
						f := pathValues[name]
						if f == nil {
							h.t.Fatalf("%s %s: no valid value for path parameter %q in the test", method, tmpl, name)
						}
						valid[name] = f(tmpl, prefix)
					}
				}
				ops = append(ops, operation{api: api, method: method, tmpl: tmpl, prefix: prefix, params: params,
					body: body, allowed: allowed, token: token, validPathParam: valid})
			}
		}
	}
	return ops
}

func asList(v any) []any { l, _ := v.([]any); return l }

// schemaType is a schema's type without "null", and whether null is allowed.
func schemaType(s map[string]any) (string, bool) {
	switch t := s["type"].(type) {
	case string:
		return t, false
	case []any:
		var typ string
		null := false
		for _, e := range t {
			if e == "null" {
				null = true
			} else {
				typ, _ = e.(string)
			}
		}
		return typ, null
	}
	return "", false
}

// violates reports whether v is certainly invalid for schema s (false when unsure: a
// schema with oneOf/anyOf, or none).
func violates(s map[string]any, v any, required bool) bool {
	if s == nil || s["oneOf"] != nil || s["anyOf"] != nil || s["allOf"] != nil {
		return false
	}
	typ, nullable := schemaType(s)
	if typ == "" {
		return false
	}
	if v == nil {
		return !nullable && required
	}
	switch typ {
	case "string":
		str, ok := v.(string)
		if !ok {
			return true
		}
		if strings.TrimSpace(str) == "" && !required {
			return false // blank is absent, the house rule for optional properties
		}
		if enum := asList(s["enum"]); len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return strings.EqualFold(fmt.Sprint(e), strings.TrimSpace(str)) }) {
			return true
		}
		if n, ok := s["maxLength"].(float64); ok && len([]rune(str)) > int(n) {
			return true
		}
		if n, ok := s["minLength"].(float64); ok && len([]rune(str)) < int(n) {
			return true
		}
		if p, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err == nil && !re.MatchString(str) {
				return true
			}
		}
		return false
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return true
		}
		f, _, err := big.ParseFloat(n.String(), 10, 200, big.ToNearestEven)
		if err != nil {
			return true
		}
		if typ == "integer" && (!f.IsInt() || f.Cmp(new(big.Float).SetInt64(math.MaxInt64)) > 0 || f.Cmp(new(big.Float).SetInt64(math.MinInt64)) < 0) {
			return true
		}
		if m, ok := s["minimum"].(float64); ok && f.Cmp(big.NewFloat(m)) < 0 {
			return true
		}
		if m, ok := s["maximum"].(float64); ok && f.Cmp(big.NewFloat(m)) > 0 {
			return true
		}
		return false
	case "boolean":
		_, ok := v.(bool)
		return !ok
	case "array":
		_, ok := v.([]any)
		return !ok
	case "object":
		_, ok := v.(map[string]any)
		return !ok
	}
	return false
}

// property is one property of a body schema, at a dotted path.
type property struct {
	path     []string // keys; "0" steps into an array's first item
	schema   map[string]any
	required bool
}

// properties lists the properties of s, one level into objects and arrays of objects.
func (d doc) properties(s map[string]any, prefix []string, depth int) []property {
	var out []property
	props, _ := s["properties"].(map[string]any)
	var req []string
	for _, r := range asList(s["required"]) {
		req = append(req, r.(string))
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		ps := d.resolve(props[name])
		path := append(slices.Clone(prefix), name)
		out = append(out, property{path: path, schema: ps, required: slices.Contains(req, name)})
		if depth == 0 {
			continue
		}
		typ, _ := schemaType(ps)
		switch typ {
		case "object":
			out = append(out, d.properties(ps, path, depth-1)...)
		case "array":
			if it := d.resolve(ps["items"]); it != nil {
				if t, _ := schemaType(it); t == "object" {
					out = append(out, d.properties(it, append(slices.Clone(path), "0"), depth-1)...)
				} else {
					out = append(out, property{path: append(slices.Clone(path), "0"), schema: it})
				}
			}
		}
	}
	return out
}

// set returns a deep copy of body with the value at path replaced (created on the way).
func set(body any, path []string, v any) any {
	if len(path) == 0 {
		return v
	}
	switch b := body.(type) {
	case map[string]any:
		out := make(map[string]any, len(b))
		for k, e := range b {
			out[k] = e
		}
		out[path[0]] = set(b[path[0]], path[1:], v)
		return out
	case []any:
		out := slices.Clone(b)
		if len(out) == 0 {
			out = append(out, nil)
		}
		out[0] = set(out[0], path[1:], v)
		return out
	case nil:
		if path[0] == "0" {
			return []any{set(nil, path[1:], v)}
		}
		return map[string]any{path[0]: set(nil, path[1:], v)}
	}
	return body
}

func dotted(path []string) string { return strings.ReplaceAll(strings.Join(path, "."), ".0", "") }

// values are the corpus values to try on a property of schema s: its wrong types, its
// kind's edge values, unknown enum values, and bad dates and times where the schema has a pattern.
func (c *corpus) values(s map[string]any) []any {
	typ, _ := schemaType(s)
	vals := slices.Clone(c.WrongTypes[typ])
	// The edge values of the property's own kind (null and "" for every kind): the other
	// kinds' are wrong types, which wrong_types samples already.
	numeric := typ == "integer" || typ == "number"
	for _, v := range c.EdgeValues {
		_, isNumber := v.(json.Number)
		str, isString := v.(string)
		if v == nil || str == "" && isString || isNumber && (numeric || typ == "") || isString && !numeric {
			vals = append(vals, v)
		}
	}
	if len(asList(s["enum"])) > 0 {
		vals = append(vals, c.UnknownEnum...)
	}
	if _, ok := s["pattern"]; ok || s["format"] != nil {
		vals = append(vals, c.BadDates...)
		vals = append(vals, c.BadTimes...)
	}
	return vals
}

// TestBadInputCorpus sends testdata/corpus.json to every operation the served OpenAPI
// documents list (/api/v2, and /api/v1 on each of its servers, the sandbox included) and to
// every tool the three MCP servers list, so that a new operation or tool is covered (or, with
// a body or arguments, asks for a valid example in the corpus). A value the documented schema
// refuses (a wrong type, an unknown enum value, a bad date, out of range, over maxLength, a
// NUL) must be refused: a 4xx with the contract's error object (the Errors docs page) whose errors[]
// names the field on a 422, or a tool error naming the argument. A value the schema allows
// may be taken. Nothing may be a 5xx or an internal error, and a refused write must leave
// the database as it was. It runs on the engine the suites run on (ANSWERDESK_TEST_ENGINE).
func TestBadInputCorpus(t *testing.T) {
	start := time.Now()
	app := testapp.NewPublic(t)
	c := loadCorpus(t)
	h := &harness{t: t, app: app, c: c, counts: map[string]int{}, statuses: map[string]int{}, fails: map[string]int{}}

	// The fixture the valid requests refer to.
	msg := app.CreateMessage(t, app.Alice, testapp.Start.Add(-time.Hour), map[string]any{"account_number": "1001"})
	rec, callMsg := app.CreateCall(t, app.Alice, app.Acme, testapp.Start.Add(-2*time.Hour), "Support", true)
	toDo := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"Say hello","schedule":{"frequency":"daily","times":["09:00"]}}`)
	contact := app.CreateOnCallContact(t, app.Alice, `{"account_number":"1001","name":"On call","delivery_methods":[{"type":"external_api","url":"https://hooks.acme.example/in","data":[{"field":"text","value":"x"}]}]}`)
	jobs := map[string]string{} // a batch job id by API prefix
	for _, prefix := range []string{"/api/v1", "/api/sandbox/v1"} {
		job := app.DoWith(t, "POST", prefix+"/batch", "", `{"requests":[{"id":"a","method":"GET","path":"/company"}]}`, http.Header{"Prefer": {"respond-async"}})
		loc := job.Header.Get("Location")
		if loc == "" {
			t.Fatalf("%s: an async batch answered %d without a Location", prefix, job.Status)
		}
		jobs[prefix] = loc[strings.LastIndex(loc, "/")+1:]
	}
	toDo2 := app.CreateToDo(t, app.Alice, `{"account_number":"1001","delivery_type":"call","instructions":"Say bye","schedule":{"frequency":"daily","times":["10:00"]}}`)
	// A message after the contact exists queues a delivery, so replay has one to find.
	app.CreateMessage(t, app.Alice, testapp.Start.Add(-30*time.Minute), map[string]any{"account_number": "1001"})
	var deliveryID int64
	if err := app.DB.SQL().QueryRow(`SELECT id FROM dispatch_deliveries ORDER BY id LIMIT 1`).Scan(&deliveryID); err != nil {
		t.Fatalf("the fixture's delivery: %v", err)
	}
	pathValues := map[string]func(string, string) string{
		"id": func(tmpl, _ string) string {
			switch {
			case strings.HasSuffix(tmpl, "/call-recording"):
				return fmt.Sprint(callMsg.ID)
			case strings.Contains(tmpl, "/messages/"):
				return fmt.Sprint(msg.ID)
			case strings.Contains(tmpl, "/call-recordings/"):
				return fmt.Sprint(rec.ID)
			case strings.Contains(tmpl, "/to-dos/"):
				return fmt.Sprint(toDo.ID)
			case strings.Contains(tmpl, "/on-call-contacts/"):
				return fmt.Sprint(contact.ID)
			case strings.Contains(tmpl, "/dispatch-deliveries/"):
				return fmt.Sprint(deliveryID)
			case strings.Contains(tmpl, "/users/"):
				return fmt.Sprint(app.Alice.ID)
			}
			t.Fatalf("no valid id for %s", tmpl)
			return ""
		},
		"number":     func(string, string) string { return "1001" },
		"sms_number": func(string, string) string { return "+15550101001" },
		"domain":     func(string, string) string { return "acme.example" },
		"email":      func(string, string) string { return "blocked@acme.example" },
		"jobId":      func(_, prefix string) string { return jobs[prefix] },
	}
	ids := map[string]string{"<MESSAGE>": fmt.Sprint(msg.ID), "<CALL_MESSAGE>": fmt.Sprint(callMsg.ID), "<RECORDING>": fmt.Sprint(rec.ID),
		"<TODO>": fmt.Sprint(toDo.ID), "<TODO_TO_CANCEL>": fmt.Sprint(toDo2.ID)}

	v2, v1 := h.getDoc("/api/v2/openapi.json"), h.getDoc("/api/v1/openapi.json")
	var v1Prefixes []string
	for _, s := range asList(v1.root["servers"]) {
		v1Prefixes = append(v1Prefixes, s.(map[string]any)["url"].(string))
	}
	ops := h.operations(v2, "v2", []string{""}, app.Admin.Token, pathValues)
	ops = append(ops, h.operations(v1, "v1", v1Prefixes, "", pathValues)...)
	docs := map[string]doc{"v2": v2, "v1": v1}

	t.Run("rest", func(t *testing.T) {
		h.t = t
		for _, op := range ops {
			h.restOperation(op, docs[op.api], ids)
		}
		h.restPaths(ops)
	})
	t.Run("mcp", func(t *testing.T) {
		h.t = t
		h.mcpServers(ids)
	})
	h.t = t
	var kinds []string
	total := 0
	for k, n := range h.counts {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
		total += n
	}
	sort.Strings(kinds)
	t.Logf("%d operations, %d requests and calls in %v: %s", len(ops), total, time.Since(start).Round(time.Millisecond), strings.Join(kinds, " "))
	// A walk over fewer operations than the documents hold passes by checking nothing.
	if len(ops) < 40 || total < 4000 {
		t.Errorf("walked %d operations and %d requests and calls; the documents and tools give about 52 and 5,100", len(ops), total)
	}
	var statuses []string
	for k, n := range h.statuses {
		statuses = append(statuses, fmt.Sprintf("%s: %d", k, n))
	}
	sort.Strings(statuses)
	t.Logf("answers by kind and status: %s", strings.Join(statuses, ", "))
	if r := app.Do(t, "GET", "/healthz", "", nil); r.Status != 200 {
		t.Fatalf("the server is not healthy after the corpus: %d", r.Status)
	}
}

// badStatus is the status a bad parameter gets: 422 on the customer API, 400 on the public
// one (the Errors docs page, §3).
func badStatus(api string) int {
	if api == "v2" {
		return 422
	}
	return 400
}

func (h *harness) validBody(op operation, ids map[string]string) (map[string]any, bool) {
	key := op.key()
	b, ok := h.c.ValidBodies[key]
	if !ok {
		h.t.Errorf("%s takes a body: add a valid one to testdata/corpus.json valid_bodies", key)
		return nil, false
	}
	h.seq++
	out, _ := expandValue(b, h.seq, ids).(map[string]any)
	return out, true
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (h *harness) restOperation(op operation, d doc, ids map[string]string) {
	t := h.t
	t.Helper()
	base := request{method: op.method, url: op.url(nil), token: op.token}
	// The operation as documented answers: a bad-input answer means nothing when the route
	// itself is missing (a read without required parameters is sent as is).
	if op.method == "GET" && !slices.ContainsFunc(op.params, func(p map[string]any) bool { return p["required"] == true && p["in"] == "query" }) {
		if a := h.send(request{kind: "valid read", method: "GET", url: base.url, token: op.token}); a.status != 200 && a.status != 202 {
			h.failf("valid read", "GET %s: %d %.200s", base.url, a.status, a.body)
		}
	}
	// Bad path values, for each path parameter.
	for _, p := range op.params {
		if p["in"] != "path" {
			continue
		}
		name := p["name"].(string)
		for _, v := range h.c.PathValues {
			r := base
			r.kind = "path value"
			r.url = op.url(map[string]string{name: expand(v, 0)})
			if op.body != nil {
				if b, ok := h.validBody(op, ids); ok {
					r.body, r.hasBody = marshal(b), true
				}
			}
			// A bad path value names no resource: 404 (or, where the document says the
			// parameter has a pattern, a bad parameter).
			h.check(r, false, "", 404, badStatus(op.api))
		}
	}
	// required is the operation's required query parameters but name, with the corpus's
	// valid values, as a query prefix ("q=pricing&"), so that a bad value is the only fault.
	required := func(name string) string {
		var out string
		for _, p := range op.params {
			if p["in"] == "query" && p["required"] == true && p["name"] != name {
				v, ok := h.c.RequiredQuery[op.key()][p["name"].(string)]
				if !ok {
					t.Errorf("%s: add a valid %s to testdata/corpus.json required_query", op.key(), p["name"])
				}
				out += p["name"].(string) + "=" + v + "&"
			}
		}
		return out
	}
	// Bad query values, for each query parameter, alone, repeated and empty.
	for _, p := range op.params {
		if p["in"] != "query" {
			continue
		}
		name := p["name"].(string)
		s := d.resolve(p["schema"])
		typ, _ := schemaType(s)
		class := typ
		switch {
		case len(asList(s["enum"])) > 0:
			class = "enum"
		case s["pattern"] != nil:
			class = "date"
		case typ == "number":
			class = "integer"
		}
		vals := h.c.QueryValues[class]
		if vals == nil {
			vals = h.c.QueryValues["string"]
		}
		for _, v := range vals {
			r := base
			r.kind = "query value"
			r.url = base.url + "?" + required(name) + name + "=" + expand(v, 0)
			raw := expand(v, 0)
			if un, err := url.QueryUnescape(raw); err == nil {
				raw = un
			}
			var jv any = raw
			if typ == "integer" || typ == "number" {
				if _, err := json.Number(raw).Float64(); err == nil {
					jv = json.Number(raw)
				}
			} else if typ == "boolean" && (raw == "true" || raw == "false") {
				jv = raw == "true"
			}
			strict := raw != "" && violates(s, jv, true) || (typ == "integer" || typ == "boolean") && raw != ""
			if typ == "integer" {
				strict = strict && violates(s, jv, true)
			}
			if class == "date" {
				strict = raw != ""
			}
			if op.api == "v2" && badText(raw) {
				strict = true
			}
			if op.key() == "GET /search" && name == "q" && raw != "" {
				strict = false // any text is a query
			}
			h.check(r, !strict, name, badStatus(op.api))
		}
		r := base
		r.kind = "query repeated"
		r.url = base.url + "?" + required(name) + name + "=1&" + name + "=2"
		h.check(r, true, "")
	}
	// Combinations of parameters (inverted ranges, last pages, foreign cursors): taken or
	// refused, never a 500.
	for _, q := range h.c.QueryCombos[op.key()] {
		h.check(request{kind: "query combination", method: op.method, url: base.url + "?" + q, token: op.token}, true, "")
	}
	// Valid dates (a leap day among them) pass a date parameter.
	for _, p := range op.params {
		if s := d.resolve(p["schema"]); p["in"] == "query" && s["pattern"] != nil {
			if re, err := regexp.Compile(s["pattern"].(string)); err != nil || !re.MatchString("12-31-2026") {
				continue // not a date
			}
			for _, v := range h.c.ValidDates {
				if a := h.send(request{kind: "valid date", method: op.method, url: base.url + "?" + required(p["name"].(string)) + p["name"].(string) + "=" + v, token: op.token}); a.status != 200 {
					h.failf("valid date", "%s %s?%s=%s: %d %.200s", op.method, base.url, p["name"], v, a.status, a.body)
				}
			}
		}
	}
	// Bad header values, for each header parameter: taken or refused, never a 500.
	var async bool
	for _, p := range op.params {
		if p["in"] != "header" {
			continue
		}
		name := p["name"].(string)
		async = async || strings.EqualFold(name, "Prefer")
		for _, v := range h.c.HeaderValues {
			r := base
			r.kind = "header value"
			r.header = http.Header{http.CanonicalHeaderKey(name): {expand(v, 0)}}
			if op.body != nil {
				b, _ := h.validBody(op, ids)
				r.body, r.hasBody = marshal(b), true
			}
			h.check(r, true, "")
		}
	}
	if op.body == nil {
		return
	}
	valid, ok := h.validBody(op, ids)
	if !ok {
		return
	}
	// The valid body must pass, or the mutations below test nothing.
	if a := h.send(request{kind: "valid body", method: op.method, url: base.url, token: op.token, body: marshal(valid), hasBody: true}); a.status != 200 && a.status != 202 {
		t.Errorf("%s: the corpus's valid body is refused (%d): %.300s", op.key(), a.status, a.body)
	}
	// Bodies that are not one JSON object: 400 processing_error.
	for _, m := range h.c.Malformed {
		r := base
		r.kind = "malformed body"
		r.body, r.hasBody = []byte(expand(m.Body, 0)), true
		a := h.check(r, false, "", 400)
		if a.status == 400 && !strings.Contains(string(a.body), `"code":"processing_error"`) && op.api == "v2" {
			h.failf(r.kind, "%s %s %s: %.200s", op.key(), m.Name, "want processing_error", a.body)
		}
	}
	// Over the size limit: 413.
	{
		r := base
		r.kind = "oversized body"
		big := set(valid, []string{"padding"}, strings.Repeat("x", 1<<20+1))
		r.body, r.hasBody = marshal(big), true
		h.check(r, false, "", 413)
	}
	// A valid body with another Content-Type: refused or taken, never a 500.
	for _, ct := range h.c.ContentTypes {
		b, _ := h.validBody(op, ids)
		r := base
		r.kind = "content type"
		r.body, r.hasBody, r.contentType = marshal(b), true, ct
		h.check(r, true, "")
	}
	// Each property with each corpus value for its type.
	for _, p := range d.properties(op.body, nil, 2) {
		for _, v := range h.c.values(p.schema) {
			b, _ := h.validBody(op, ids)
			v = expandValue(v, 0, nil)
			body := set(b, p.path, v)
			r := base
			r.kind = "body property"
			// json.Marshal writes invalid UTF-8 as U+FFFD: put the corpus's bytes back.
			r.body, r.hasBody = bytes.ReplaceAll(marshal(body), []byte(`\ufffd`), []byte("\xff")), true
			// Text that is not text (a NUL) is refused by the customer API on every engine.
			strict := violates(p.schema, v, p.required) || op.api == "v2" && hasNUL(v)
			field := ""
			if op.api == "v2" {
				field = dotted(p.path)
			}
			want := []int{badStatus(op.api)}
			if !strict {
				want = nil
			}
			h.check(r, !strict, field, want...)
			if async {
				// The same, to run later (Prefer: respond-async): the job is stored first.
				r.kind = "body property (async)"
				r.header = http.Header{"Prefer": {"respond-async"}}
				h.check(r, !strict, field, want...)
			}
		}
	}
}

// restPaths sends, once per documented path: every undocumented method (405 with Allow),
// HEAD and OPTIONS, the path with a trailing slash, and no or a bad token on /api/v2.
func (h *harness) restPaths(ops []operation) {
	seen := map[string]bool{}
	for _, op := range ops {
		path := op.url(nil)
		if seen[path] {
			continue
		}
		seen[path] = true
		for _, m := range h.c.Methods {
			if slices.Contains(op.allowed, m) {
				continue
			}
			a := h.check(request{kind: "method", method: m, url: path, token: op.token, body: []byte(`{}`), hasBody: m != "GET"}, false, "", 405)
			if a.status == 405 {
				allow := strings.Split(strings.ReplaceAll(a.header.Get("Allow"), " ", ""), ",")
				for _, want := range op.allowed {
					if !slices.Contains(allow, want) {
						h.failf("method (Allow)", "%s %s: 405 with Allow %q, without the documented %s", m, path, a.header.Get("Allow"), want)
					}
				}
			}
		}
		h.check(request{kind: "HEAD/OPTIONS", method: "HEAD", url: path, token: op.token}, true, "")
		h.check(request{kind: "HEAD/OPTIONS", method: "OPTIONS", url: path, token: op.token}, true, "")
		a := h.send(request{kind: "trailing slash", method: "GET", url: path + "/", token: op.token})
		if a.status >= 500 || a.status >= 400 && a.status != 404 && a.status != 405 {
			h.failf("trailing slash", "GET %s/: %d %.200s", path, a.status, a.body)
		} else if a.status >= 400 {
			h.errorObject("trailing slash", "GET "+path+"/", a, "")
		}
		if op.api == "v2" && !strings.HasSuffix(path, "openapi.json") {
			for _, tok := range []string{"", "ak_short", "ak_" + strings.Repeat("A", 43), "ak_\xff"} {
				r := request{kind: "bad token", method: op.method, url: path, token: tok}
				if a := h.check(r, false, "", 401); a.status == 401 && !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") {
					h.failf("bad token", "%s %s: 401 without WWW-Authenticate: Bearer", op.method, path)
				}
			}
		}
	}
}

// mcpServers lists the tools of each MCP server and calls each with the corpus.
func (h *harness) mcpServers(ids map[string]string) {
	for _, srv := range []struct{ path, token string }{{"/mcp/public", ""}, {"/mcp/docs", ""}, {"/mcp/account", h.app.Alice.Token}} {
		url := h.app.Server.URL + srv.path
		var opts []transport.StreamableHTTPCOption
		if srv.token != "" {
			opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + srv.token}))
		}
		c, _ := mcptest.Connect(h.t, url, "", opts...)
		ctx := context.Background()
		list, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			h.t.Fatal(err)
		}
		for _, tool := range list.Tools {
			h.mcpTool(c, srv.path, tool, ids)
		}
		// A tool that does not exist: a JSON-RPC error or a tool error, not an internal one.
		for _, name := range []string{"no_such_tool", "", "get_company_info\u0000", long} {
			req := mcpgo.CallToolRequest{}
			req.Params.Name = name
			res, err := c.CallTool(ctx, req)
			h.counts["mcp unknown tool"]++
			if err == nil && !res.IsError || err != nil && strings.Contains(strings.ToLower(err.Error()), "internal") {
				h.failf("mcp unknown tool", "%s %.40q: %v %v", srv.path, name, res, err)
			}
		}
		_ = c.Close()
		// Raw JSON-RPC bodies that are not requests: a JSON-RPC error, never a 500.
		for _, m := range h.c.Malformed {
			hdr := http.Header{"Accept": {"application/json, text/event-stream"}}
			a := h.send(request{kind: "mcp malformed", method: "POST", url: srv.path, token: srv.token, body: []byte(expand(m.Body, 0)), hasBody: true, header: hdr})
			if os.Getenv("BADINPUT_DEBUG") != "" {
				h.t.Logf("%s %s: %d %.200s", srv.path, m.Name, a.status, a.body)
			}
			// A JSON-RPC error (in a 4xx): not a 500, and not a 404, which tells a client
			// that its session expired.
			if a.status >= 500 || a.status == 404 || !bytes.Contains(a.body, []byte(`"error"`)) {
				h.failf("mcp malformed", "%s %s: %d %.200s", srv.path, m.Name, a.status, a.body)
			}
		}
	}
}

func (h *harness) mcpTool(c *client.Client, server string, tool mcpgo.Tool, ids map[string]string) {
	valid, ok := h.c.ValidArguments[tool.Name]
	if !ok && len(tool.InputSchema.Properties) > 0 {
		h.t.Errorf("%s %s: add valid arguments to testdata/corpus.json valid_arguments", server, tool.Name)
		return
	}
	// The schema as the client sees it, through JSON (numbers as json.Number).
	var schema map[string]any
	dec := json.NewDecoder(bytes.NewReader(marshal(tool.InputSchema)))
	dec.UseNumber()
	_ = dec.Decode(&schema)
	schema = numbersToFloat(schema).(map[string]any)
	d := doc{root: schema}
	callTool := func(kind string, args map[string]any, strict bool, field string) {
		quoted := "\x00" // the value given for field, as far as an error may quote it
		if v, ok := args[field]; ok && field != "" {
			quoted = strings.Trim(string(marshal(v)), `"`)
			if len(quoted) > answerdesk.MaxEcho {
				quoted = strings.ToValidUTF8(quoted[:answerdesk.MaxEcho], "")
			}
		}
		h.t.Helper()
		write := !boolValue(tool.Annotations.ReadOnlyHint)
		var before string
		if write {
			before = h.before()
		}
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tool.Name
		req.Params.Arguments = args
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		h.last = ""
		began := time.Now()
		res, err := c.CallTool(ctx, req)
		if d := time.Since(began); d > 300*time.Millisecond {
			h.t.Logf("slow: %s %s %.100s: %v", server, tool.Name, marshal(args), d)
		}
		h.counts[kind]++
		what := fmt.Sprintf("%s %s %.200s", server, tool.Name, marshal(args))
		if err != nil {
			// A JSON-RPC invalid-params error is a clear refusal too.
			// A JSON-RPC error that says what is wrong with the request is a clear refusal;
			// an internal error or a failed transport is not.
			if low := strings.ToLower(err.Error()); strings.Contains(low, "internal") || !strings.Contains(low, "invalid") {
				h.failf(kind, "%s: protocol error %v", what, err)
			}
		} else if res.IsError {
			text := ""
			for _, ct := range res.Content {
				if tc, ok := mcpgo.AsTextContent(ct); ok {
					text += tc.Text
				}
			}
			switch {
			case text == "" || strings.HasPrefix(text, "internal error"):
				h.failf(kind, "%s: tool error %q", what, text)
			case strings.Contains(text, long[:answerdesk.MaxEcho+1]):
				h.failf(kind+" (echo)", "%s: tool error echoes more than %d bytes of input: %.300s", what, answerdesk.MaxEcho, text)
			case field != "" && !strings.Contains(text, field) && !strings.Contains(text, quoted):
				// (a not-found, `no message "0".`, quotes the value instead)
				h.failf(kind+" (field)", "%s: tool error %q does not name %q", what, text, field)
			}
		} else if strict {
			h.failf(kind, "%s: accepted", what)
		}
		if write && (err != nil || res.IsError) {
			if h.last = h.snapshot(); h.last != before {
				h.failf(kind+" (partial write)", "%s: refused but the database changed", what)
			}
		}
	}
	base := func() map[string]any {
		h.seq++
		out, _ := expandValue(valid, h.seq, ids).(map[string]any)
		if out == nil {
			out = map[string]any{}
		}
		return out
	}
	if valid != nil {
		callTool("mcp valid arguments", base(), false, "")
	}
	callTool("mcp unknown argument", set(base(), []string{"no_such_argument"}, "x").(map[string]any), true, "no_such_argument")
	// Arguments that are not an object.
	for _, a := range []any{"x", []any{1}, json.Number("5"), true} {
		h.last = ""
		req := mcpgo.CallToolRequest{}
		req.Params.Name = tool.Name
		req.Params.Arguments = a
		res, err := c.CallTool(context.Background(), req)
		h.counts["mcp arguments not an object"]++
		switch {
		case err != nil && (strings.Contains(strings.ToLower(err.Error()), "internal") || !strings.Contains(strings.ToLower(err.Error()), "invalid")):
			h.failf("mcp arguments not an object", "%s %s %v: %v", server, tool.Name, a, err)
		case err == nil && !res.IsError:
			h.failf("mcp arguments not an object", "%s %s %v: accepted", server, tool.Name, a)
		}
	}
	for _, req := range tool.InputSchema.Required {
		b := base()
		delete(b, req)
		callTool("mcp missing argument", b, true, req)
	}
	for _, p := range d.properties(schema, nil, 1) {
		for _, v := range h.c.values(p.schema) {
			v = expandValue(v, 0, nil)
			if v == nil && !p.required {
				continue
			}
			strict := violates(p.schema, v, p.required) && !coerced(p.schema, v) || hasNUL(v)
			field := ""
			if strict {
				field = p.path[len(p.path)-1]
				if field == "0" {
					field = p.path[0]
				}
			}
			callTool("mcp argument", set(base(), p.path, v).(map[string]any), strict, field)
		}
	}
}

// coerced reports whether v is a number given as a string for an integer argument ("5"),
// "true"/"false"/"1"/"0" for a boolean one, or a number for a string id: the MCP tools take both on purpose (models send them;
// the REST query they mirror is text either way), as mcp.args.integer and the id tools say.
func coerced(s map[string]any, v any) bool {
	typ, _ := schemaType(s)
	switch v := v.(type) {
	case string:
		if typ == "boolean" {
			return v == "true" || v == "false" || v == "1" || v == "0"
		}
		_, err := json.Number(strings.TrimSpace(v)).Float64()
		return typ == "integer" && err == nil
	case json.Number:
		return typ == "string"
	}
	return false
}

// badText reports whether v is a string that is not valid UTF-8 or holds a NUL (the rule
// answerdesk.ValidText; written out here so that the test does not take the rule from the
// code it checks).
func badText(v any) bool {
	s, ok := v.(string)
	return ok && (!utf8.ValidString(s) || strings.ContainsRune(s, 0))
}

// hasNUL reports whether v is a string holding a NUL: the one way a JSON value is not text
// (its invalid UTF-8 arrives as U+FFFD, replaced by the encoder or by the server's decoder).
func hasNUL(v any) bool {
	s, ok := v.(string)
	return ok && strings.ContainsRune(s, 0)
}

func boolValue(b *bool) bool { return b != nil && *b }

// numbersToFloat turns json.Number schema keywords (minimum, maxLength) into float64, as
// violates reads them.
func numbersToFloat(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbersToFloat(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = numbersToFloat(e)
		}
		return v
	case json.Number:
		f, _ := v.Float64()
		return f
	}
	return v
}
