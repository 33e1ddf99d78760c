package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Helpers shared by the tests of the two OpenAPI documents: rest/openapi/v2.json (the
// customer API, openapi_test.go) and rest/openapi/v1.json (the public API,
// openapi_v1_test.go). checkOpenAPIStructure is the structural validator of both; what the
// documents do differently is said by oaStructureOptions.

// openAPIMethods are the operation keys of an OpenAPI path item.
var openAPIMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

var (
	oaCamelCase     = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	oaPathTemplate  = regexp.MustCompile(`\{([^{}]+)\}`)
	oaComponentName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
)

// oaLoad parses the document as served (the bytes the binary assembles at start).
func oaLoad(t *testing.T, served []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(served))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the document is not valid JSON: %v", err)
	}
	if dec.More() {
		t.Fatalf("the document has data after the JSON")
	}
	return doc
}

// oaObj returns v[key] as an object, or nil.
func oaObj(v any, key string) map[string]any {
	m, _ := v.(map[string]any)
	o, _ := m[key].(map[string]any)
	return o
}

// oaResolve follows a local JSON pointer ("#/components/schemas/Message") in doc.
func oaResolve(doc map[string]any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("not a local reference")
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no index %q", tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("cannot descend into %q", tok)
		}
	}
	return cur, nil
}

// oaDeref follows $ref (repeatedly) and returns the object it names.
func oaDeref(doc map[string]any, v any) map[string]any {
	for range 10 {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		v, _ = oaResolve(doc, ref)
	}
	return nil
}

// oaWalk calls fn with the JSON pointer of every value in v.
func oaWalk(v any, at string, fn func(at string, v any)) {
	fn(at, v)
	switch c := v.(type) {
	case map[string]any:
		for k, e := range c {
			oaWalk(e, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), fn)
		}
	case []any:
		for i, e := range c {
			oaWalk(e, at+"/"+strconv.Itoa(i), fn)
		}
	}
}

// oaSchemaProps returns the properties of components.schemas.name.
func oaSchemaProps(doc map[string]any, name string) map[string]any {
	return oaObj(oaObj(oaObj(oaObj(doc, "components"), "schemas"), name), "properties")
}

// oaKeys returns the keys of m, sorted.
func oaKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// oaNum returns m[k] as an int, reporting a schema without it.
func oaNum(t *testing.T, m map[string]any, k string) int {
	t.Helper()
	f, ok := m[k].(float64)
	if !ok {
		t.Errorf("schema %v has no %s", m, k)
	}
	return int(f)
}

// oaNProps returns an object of n properties, prefix0 to prefix(n-1), each "v".
func oaNProps(prefix string, n int) map[string]any {
	out := map[string]any{}
	for i := range n {
		out[fmt.Sprint(prefix, i)] = "v"
	}
	return out
}

// oaQueryParam returns the (dereferenced) query parameter name of GET path, reporting it
// when the operation does not document it.
func oaQueryParam(t *testing.T, doc map[string]any, path, name string) map[string]any {
	t.Helper()
	op := oaObj(oaObj(oaObj(doc, "paths"), path), "get")
	ps, _ := op["parameters"].([]any)
	for _, p := range ps {
		if pm := oaDeref(doc, p); pm["name"] == name && pm["in"] == "query" {
			return pm
		}
	}
	t.Errorf("GET %s does not document query parameter %s", path, name)
	return nil
}

// oaJSONFields returns the JSON property names a struct type encodes, with their fields.
func oaJSONFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(typ) { // an embedded struct's fields are the type's
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// oaJSONNames returns the JSON property names a struct type encodes, sorted.
func oaJSONNames(typ reflect.Type) []string { return oaKeys(oaJSONFields(typ)) }

// oaMatchProps reports the properties schema name (props) and the Go type typ do not
// share, and returns the fields typ encodes.
func oaMatchProps(t *testing.T, name string, props map[string]any, typ reflect.Type) map[string]reflect.StructField {
	t.Helper()
	fields := oaJSONFields(typ)
	for _, f := range oaKeys(fields) {
		if _, ok := props[f]; !ok {
			t.Errorf("schema %s lacks property %q of %s", name, f, typ)
		}
	}
	for _, p := range oaKeys(props) {
		if _, ok := fields[p]; !ok {
			t.Errorf("schema %s has property %q that %s does not encode", name, p, typ)
		}
	}
	return fields
}

// oaFetch sends a request without a body to url and returns the response and its body.
func oaFetch(t *testing.T, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if header != nil {
		req.Header = header
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// oaCheckServed checks a response serving the document want: 200, JSON, byte for byte.
func oaCheckServed(t *testing.T, resp *http.Response, body []byte, want []byte) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("served document (%d bytes) differs from the assembled one (%d bytes)", len(body), len(want))
	}
}

// oaCheckServedCached checks a served document as oaCheckServed does, and that it is
// cacheable: Cache-Control, a strong ETag, and 304 to every If-None-Match naming it.
// get fetches the document with the header name/value pairs given.
func oaCheckServedCached(t *testing.T, get func(header ...string) (*http.Response, []byte), want []byte) {
	t.Helper()
	resp, body := get()
	oaCheckServed(t, resp, body, want)
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=300" {
		t.Errorf("Cache-Control %q, want public, max-age=300", cc)
	}
	etag := resp.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
		t.Fatalf("ETag %q, want a strong entity tag", etag)
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		if resp, body := get("If-None-Match", inm); resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d %q", inm, resp.StatusCode, body)
		}
	}
	if resp, _ := get("If-None-Match", `"other"`); resp.StatusCode != http.StatusOK {
		t.Errorf("a stale ETag: %d", resp.StatusCode)
	}
}

// oaStructureOptions are what the documents do differently; the zero value asks only what
// every document must do.
type oaStructureOptions struct {
	// versionPrefix, when set, is the prefix info.version must have.
	versionPrefix string
	// servers, when set, are exactly the server URLs the document lists, in order; otherwise
	// it lists at least one.
	servers []string
	// pathPrefix, when set, starts every path (full paths, such as /api/v2/messages);
	// otherwise paths are relative to the servers (/company, not /api/v1/company).
	pathPrefix string
	// bearerScheme names the HTTP bearer security scheme every operation inherits from a
	// top-level requirement (operations may name other defined schemes). Empty: the API
	// needs no credentials, so no security scheme is defined and security is [] throughout.
	bearerScheme string
	// specPath is the path of the document itself: its GET needs no credentials (security
	// []), and it is exempt from requiredResponses and requiredHeaders.
	specPath string
	// successCodes, when set, are the only status codes that are not errors; otherwise
	// statuses from 400 are. Errors are the Error schema, with examples that carry their
	// status and a code of Error.code; other responses are not the Error schema.
	successCodes []string
	// requiredResponses are the status codes (besides 200) every operation documents.
	requiredResponses []string
	// responseHeaders are the headers every response documents.
	responseHeaders []string
	// requiredHeaders are the header parameters every operation documents.
	requiredHeaders []string
	// conditionalReads: every GET (uncachedReads aside) documents the If-None-Match header,
	// ETag and Cache-Control on its 200, and a 304. Any 304 has no body and documents ETag.
	conditionalReads bool
	uncachedReads    []string
	// requireRequestBody: every POST, PUT and PATCH has a request body (a documented one
	// always has an application/json schema).
	requireRequestBody bool
	// operationIDs are operation ids the document must give, to "METHOD /path".
	operationIDs map[string]string
	// validateExamples: the examples of components.schemas and components.responses are
	// valid instances of their schemas (oaValidate: Go regexp syntax for patterns).
	validateExamples bool
}

// checkOpenAPIStructure checks that doc is a sound OpenAPI 3.1 document: info, servers,
// $refs, component names and headers, security, paths, operation ids, summaries and
// descriptions, responses (descriptions, schemas, errors and their examples, headers),
// parameters (path templates declared and vice versa), request bodies and, as opts say,
// examples.
func checkOpenAPIStructure(t *testing.T, doc map[string]any, opts oaStructureOptions) {
	t.Helper()
	components := oaObj(doc, "components")
	c := &oaStructure{t: t, doc: doc, opts: opts, schemes: oaObj(components, "securitySchemes"),
		errorCodes: oaStrings(oaObj(oaSchemaProps(doc, "Error"), "code")["enum"]), opIDs: map[string]string{}}
	c.checkTop()

	// Every $ref resolves, and points into components.
	oaWalk(doc, "#", func(at string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		ref, ok := m["$ref"]
		if !ok {
			return
		}
		s, _ := ref.(string)
		if !strings.HasPrefix(s, "#/components/") {
			t.Errorf("%s: $ref %q does not point into #/components", at, ref)
			return
		}
		if _, err := oaResolve(doc, s); err != nil {
			t.Errorf("%s: $ref %q does not resolve: %v", at, s, err)
		}
	})

	// Components are well named; headers are described and typed.
	for kind, v := range components {
		for name := range v.(map[string]any) {
			if !oaComponentName.MatchString(name) {
				t.Errorf("components.%s.%s: name is not allowed by OpenAPI", kind, name)
			}
		}
	}
	for name, h := range oaObj(components, "headers") {
		hm := h.(map[string]any)
		if s, _ := hm["description"].(string); s == "" {
			t.Errorf("components.headers.%s has no description", name)
		}
		if oaObj(hm, "schema")["type"] == nil {
			t.Errorf("components.headers.%s has no schema type", name)
		}
	}

	c.checkSecuritySchemes(components)
	for path, item := range oaObj(doc, "paths") {
		c.checkPath(path, item.(map[string]any))
	}
	for id, at := range opts.operationIDs {
		if c.opIDs[id] != at {
			t.Errorf("operationId %s is %q, want %s", id, c.opIDs[id], at)
		}
	}
	// The document itself needs no credentials.
	spec := oaObj(oaObj(oaObj(doc, "paths"), opts.specPath), "get")
	if sec, ok := spec["security"].([]any); !ok || len(sec) != 0 {
		t.Errorf("GET %s: security = %v, want []", opts.specPath, spec["security"])
	}
	if opts.validateExamples {
		checkOpenAPIExamples(t, doc)
	}
}

// oaStructure is the state of one checkOpenAPIStructure.
type oaStructure struct {
	t          *testing.T
	doc        map[string]any
	opts       oaStructureOptions
	schemes    map[string]any    // components.securitySchemes
	errorCodes []string          // the enum of Error.code
	opIDs      map[string]string // operation id: "METHOD /path" using it
}

// oaStrings returns the strings of a JSON array.
func oaStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// checkTop checks the version of OpenAPI, info and servers.
func (c *oaStructure) checkTop() {
	t, doc := c.t, c.doc
	t.Helper()
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	info := oaObj(doc, "info")
	for _, k := range []string{"title", "version", "description"} {
		if s, _ := info[k].(string); s == "" {
			t.Errorf("info.%s is missing", k)
		}
	}
	if v, _ := info["version"].(string); !strings.HasPrefix(v, c.opts.versionPrefix) {
		t.Errorf("info.version %q is not a %sx version", v, c.opts.versionPrefix)
	}
	var servers []string
	list, _ := doc["servers"].([]any)
	for _, s := range list {
		m, _ := s.(map[string]any)
		servers = append(servers, fmt.Sprint(m["url"]))
	}
	if len(servers) == 0 {
		t.Error("servers is missing")
	}
	if c.opts.servers != nil && !slices.Equal(servers, c.opts.servers) {
		t.Errorf("servers %v, want %v", servers, c.opts.servers)
	}
}

// checkSecuritySchemes checks the security schemes and the top-level requirement.
func (c *oaStructure) checkSecuritySchemes(components map[string]any) {
	t := c.t
	t.Helper()
	sec, hasSec := c.doc["security"]
	if name := c.opts.bearerScheme; name != "" {
		bearer := oaObj(c.schemes, name)
		if bearer["type"] != "http" || !strings.EqualFold(fmt.Sprint(bearer["scheme"]), "bearer") {
			t.Errorf("securitySchemes.%s = %v, want type http, scheme bearer", name, bearer)
		}
		if !hasSec {
			t.Error("no top-level security requirement")
		}
	} else {
		if _, ok := components["securitySchemes"]; ok {
			t.Error("the API needs no credentials, yet components.securitySchemes is defined")
		}
		if !hasSec {
			t.Error("top-level security is missing, want []")
		}
	}
	if hasSec {
		c.checkSecurity("#/security", sec)
	}
}

// checkSecurity checks a security requirement: it names defined schemes, and none when the
// API needs no credentials.
func (c *oaStructure) checkSecurity(at string, v any) {
	t := c.t
	t.Helper()
	reqs, ok := v.([]any)
	if !ok {
		t.Errorf("%s: security is not an array", at)
		return
	}
	if c.opts.bearerScheme == "" && len(reqs) != 0 {
		t.Errorf("%s: security %v, want none ([])", at, v)
	}
	for _, r := range reqs {
		for name := range r.(map[string]any) {
			if _, ok := c.schemes[name]; !ok {
				t.Errorf("%s: security names undefined scheme %q", at, name)
			}
		}
	}
}

// checkPath checks a path and its operations.
func (c *oaStructure) checkPath(path string, item map[string]any) {
	t := c.t
	t.Helper()
	if c.opts.pathPrefix != "" && !strings.HasPrefix(path, c.opts.pathPrefix) {
		t.Errorf("path %s: want the full path under %s", path, c.opts.pathPrefix)
	}
	if c.opts.pathPrefix == "" && (!strings.HasPrefix(path, "/") || strings.HasPrefix(path, "/api/")) {
		t.Errorf("path %s: want a path relative to the servers (/company, not /api/v1/company)", path)
	}
	for _, method := range openAPIMethods {
		if op, ok := item[method]; ok {
			c.checkOperation(path, item, method, op.(map[string]any))
		}
	}
}

// checkOperation checks the operation method of path item.
func (c *oaStructure) checkOperation(path string, item map[string]any, method string, op map[string]any) {
	t, opts := c.t, c.opts
	t.Helper()
	at := strings.ToUpper(method) + " " + path
	cachedRead := opts.conditionalReads && method == "get" && !slices.Contains(opts.uncachedReads, path)

	id, _ := op["operationId"].(string)
	switch {
	case id == "":
		t.Errorf("%s: no operationId", at)
	case !oaCamelCase.MatchString(id):
		t.Errorf("%s: operationId %q is not camelCase", at, id)
	case c.opIDs[id] != "":
		t.Errorf("%s: operationId %q is also used by %s", at, id, c.opIDs[id])
	default:
		c.opIDs[id] = at
	}
	for _, k := range []string{"summary", "description"} {
		if s, _ := op[k].(string); s == "" {
			t.Errorf("%s: no %s", at, k)
		}
	}
	if sec, ok := op["security"]; ok {
		c.checkSecurity(at, sec)
	}

	responses, _ := op["responses"].(map[string]any)
	if _, ok := responses["200"]; !ok {
		t.Errorf("%s: no 200 response", at)
	}
	for _, code := range opts.requiredResponses {
		if _, ok := responses[code]; !ok && path != opts.specPath {
			t.Errorf("%s: no %s response", at, code)
		}
	}
	for code, r := range responses {
		c.checkResponse(at, code, r)
	}
	if cachedRead {
		if _, ok := responses["304"]; !ok {
			t.Errorf("%s: a read without a 304 response", at)
		}
		h := oaObj(oaDeref(c.doc, responses["200"]), "headers")
		for _, name := range []string{"ETag", "Cache-Control"} {
			if _, ok := h[name]; !ok {
				t.Errorf("%s: 200 does not document %s", at, name)
			}
		}
	}

	seen := c.checkParameters(at, path, item, op)
	for _, h := range opts.requiredHeaders {
		if path != opts.specPath && !seen["header:"+strings.ToLower(h)] {
			t.Errorf("%s: the %s header is not documented", at, h)
		}
	}
	if cachedRead && !seen["header:if-none-match"] {
		t.Errorf("%s: the If-None-Match header is not documented", at)
	}

	if method == "post" || method == "put" || method == "patch" {
		if body, ok := op["requestBody"]; ok || opts.requireRequestBody {
			b := oaDeref(c.doc, body)
			content := oaObj(b, "content")
			if oaObj(content, "application/json")["schema"] == nil && oaObj(content, "multipart/form-data")["schema"] == nil {
				t.Errorf("%s: requestBody has no application/json (or multipart/form-data) schema", at)
			}
		}
	}
}

// checkParameters checks the parameters of operation at: path-level and operation-level,
// unique by (in, name), names compared without case; every template variable of path
// declared as a required path parameter and vice versa. It returns the "in:name" (name in
// lower case) of each.
func (c *oaStructure) checkParameters(at, path string, item, op map[string]any) map[string]bool {
	t := c.t
	t.Helper()
	templated := map[string]bool{}
	for _, m := range oaPathTemplate.FindAllStringSubmatch(path, -1) {
		templated[m[1]] = true
	}
	var params []any
	if p, ok := item["parameters"].([]any); ok {
		params = append(params, p...)
	}
	if p, ok := op["parameters"].([]any); ok {
		params = append(params, p...)
	}
	seen := map[string]bool{}
	declared := map[string]bool{}
	for _, rawP := range params {
		p := oaDeref(c.doc, rawP)
		if p == nil {
			t.Errorf("%s: parameter %v does not resolve", at, rawP)
			continue
		}
		name, _ := p["name"].(string)
		in, _ := p["in"].(string)
		if name == "" || !slices.Contains([]string{"path", "query", "header", "cookie"}, in) {
			t.Errorf("%s: parameter %v lacks a name or a valid in", at, p)
			continue
		}
		if seen[in+":"+strings.ToLower(name)] {
			t.Errorf("%s: parameter %s in %s is declared twice", at, name, in)
		}
		seen[in+":"+strings.ToLower(name)] = true
		schema := oaDeref(c.doc, p["schema"])
		if schema == nil || schema["type"] == nil {
			t.Errorf("%s: parameter %s has no schema type", at, name)
		}
		if s, _ := p["description"].(string); s == "" {
			t.Errorf("%s: parameter %s has no description", at, name)
		}
		if in == "path" {
			declared[name] = true
			if p["required"] != true {
				t.Errorf("%s: path parameter %s is not required: true", at, name)
			}
			if !templated[name] {
				t.Errorf("%s: path parameter %s is not in the path template", at, name)
			}
		}
	}
	for name := range templated {
		if !declared[name] {
			t.Errorf("%s: template variable {%s} is not declared as a path parameter", at, name)
		}
	}
	return seen
}

// isError tells whether status code is an error response (see successCodes).
func (c *oaStructure) isError(code string) bool {
	if c.opts.successCodes != nil {
		return !slices.Contains(c.opts.successCodes, code)
	}
	status, _ := strconv.Atoi(code)
	return status >= 400
}

// checkResponse checks response code r of operation at.
func (c *oaStructure) checkResponse(at, code string, r any) {
	t := c.t
	t.Helper()
	resp := oaDeref(c.doc, r)
	if resp == nil {
		t.Errorf("%s: response %s does not resolve", at, code)
		return
	}
	if s, _ := resp["description"].(string); s == "" {
		t.Errorf("%s: response %s has no description", at, code)
	}
	headers := oaObj(resp, "headers")
	for name, h := range headers {
		if oaDeref(c.doc, h) == nil {
			t.Errorf("%s: response %s header %s does not resolve", at, code, name)
		}
	}
	for _, name := range c.opts.responseHeaders {
		if _, ok := headers[name]; !ok {
			t.Errorf("%s: response %s does not document %s", at, code, name)
		}
	}
	if code == "304" { // Not Modified: never a body, always the ETag it answers to
		if resp["content"] != nil {
			t.Errorf("%s: 304 has content", at)
		}
		if _, ok := headers["ETag"]; !ok {
			t.Errorf("%s: 304 does not document ETag", at)
		}
		return
	}
	content := oaObj(oaObj(resp, "content"), "application/json")
	schema := oaObj(content, "schema")
	if schema == nil {
		t.Errorf("%s: response %s has no application/json schema", at, code)
		return
	}
	isError := c.isError(code)
	switch isErrorSchema := schema["$ref"] == "#/components/schemas/Error"; {
	case isError && !isErrorSchema:
		t.Errorf("%s: response %s is not the Error schema", at, code)
	case !isError && isErrorSchema:
		t.Errorf("%s: success response %s is the Error schema", at, code)
	}
	if !isError {
		return
	}
	// Error examples carry the status they are documented under, and a code of the Error
	// schema.
	var examples []any
	if ex, ok := content["example"]; ok {
		examples = append(examples, ex)
	}
	for _, ex := range oaObj(content, "examples") {
		examples = append(examples, oaObj(ex, "value"))
	}
	status, _ := strconv.Atoi(code)
	for _, ex := range examples {
		e, _ := ex.(map[string]any)
		if ec, _ := e["code"].(string); e["status"] != float64(status) || !slices.Contains(c.errorCodes, ec) {
			t.Errorf("%s: response %s example has status %v code %v", at, code, e["status"], e["code"])
		}
	}
}

// checkOpenAPIExamples checks that schema examples and response examples are valid
// instances of their schemas.
func checkOpenAPIExamples(t *testing.T, doc map[string]any) {
	t.Helper()
	components := oaObj(doc, "components")
	for name, s := range oaObj(components, "schemas") {
		list, _ := s.(map[string]any)["examples"].([]any)
		for i, ex := range list {
			for _, e := range oaValidate(doc, s, ex, fmt.Sprintf("schemas.%s.examples[%d]", name, i)) {
				t.Error(e)
			}
		}
	}
	for name, r := range oaObj(components, "responses") {
		content := oaObj(oaObj(r, "content"), "application/json")
		if ex, ok := content["example"]; ok {
			for _, e := range oaValidate(doc, content["schema"], ex, "responses."+name+".example") {
				t.Error(e)
			}
		}
		for exName, ex := range oaObj(content, "examples") {
			for _, e := range oaValidate(doc, content["schema"], ex.(map[string]any)["value"], "responses."+name+".examples."+exName) {
				t.Error(e)
			}
		}
	}
}

// oaValidate checks v against schema (a schema of doc, or a $ref into it) with
// santhosh-tekuri/jsonschema/v6 (JSON Schema 2020-12, the dialect of OpenAPI 3.1), formats
// asserted, and strictly: every object schema that lists properties admits no other
// (unevaluatedProperties: false is added to a copy of the document), so that a response
// property the document does not describe fails.
func oaValidate(doc map[string]any, schema any, v any, at string) []string {
	return oaValidateAs(doc, schema, v, at, true)
}

// oaValidateRequest is oaValidate for a request body: as the document says, without the
// strictness (a request may carry properties a schema does not list when the schema says
// nothing of others, as the parsers ignore them).
func oaValidateRequest(doc map[string]any, schema any, v any, at string) []string {
	return oaValidateAs(doc, schema, v, at, false)
}

func oaValidateAs(doc map[string]any, schema any, v any, at string, strict bool) []string {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	const docURL = "https://answerdesk.test/openapi.json"
	if err := c.AddResource(docURL, oaStrict(doc, "", strict)); err != nil {
		return []string{fmt.Sprintf("%s: the document: %v", at, err)}
	}
	const schemaURL = "https://answerdesk.test/schema.json"
	if err := c.AddResource(schemaURL, oaStrict(schema, docURL, strict)); err != nil {
		return []string{fmt.Sprintf("%s: schema: %v", at, err)}
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return []string{fmt.Sprintf("%s: schema %s does not compile: %v", at, oaShort(schema), err)}
	}
	// The validator wants JSON numbers as json.Number or float64, as decoded.
	raw, err := json.Marshal(v)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", at, err)}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", at, err)}
	}
	if err := sch.Validate(inst); err != nil {
		return []string{fmt.Sprintf("%s: %s: %v", at, oaShort(v), err)}
	}
	return nil
}

// oaStrict returns a deep copy of v where (when strict) every schema that lists properties and says
// nothing of others admits no others, and (with base) every local $ref points into the
// document at base.
func oaStrict(v any, base string, strict bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x)+1)
		for k, e := range x {
			if k == "properties" {
				props := map[string]any{}
				for name, ps := range e.(map[string]any) {
					props[name] = oaStrict(ps, base, strict)
				}
				out[k] = props
				continue
			}
			out[k] = oaStrict(e, base, strict)
		}
		if ref, ok := x["$ref"].(string); ok && base != "" && strings.HasPrefix(ref, "#") {
			out["$ref"] = base + ref
		}
		if _, ok := x["properties"].(map[string]any); ok && strict {
			if _, says := x["additionalProperties"]; !says {
				out["unevaluatedProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = oaStrict(e, base, strict)
		}
		return out
	default:
		return v
	}
}

// oaShort is v as JSON, cut to 80 characters.
func oaShort(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
