package rest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// operation is one operation of an API, declared once, beside its handler (each API's
// declaration type adds the handler and how it is routed): the router serves it from this
// declaration and the OpenAPI document's paths describe it from the
// same one (operationPaths). The declaration holds what the code decides (method, path,
// operationId, summary, the scopes, the query parameters and their schemas from the rule's
// constants, the schema of each success body, the error responses) and, for the customer
// API, the operation's description; the document's base file holds the rest of the prose
// (tags, the descriptions and headers of its responses, the descriptions and examples of
// its parameters, and the public API's descriptions).
type operation struct {
	method, path string // path as OpenAPI and chi both write it: /batch/jobs/{jobId}
	id, summary  string
	description  string         // what it does, in the document's prose (Markdown)
	query        []queryParam   // the query parameters it takes (v1 answers any other with a 400; v2 ignores it)
	bodies       map[int]string // success status → schema component of the body ("" keeps the base's)
	errors       map[int]string // error status → response component
	// scopes are what the caller's credential must grant (the service checks them; the
	// document states them as the operation's security, and a cached read checks them
	// before it answers from the cache). None: any valid credential.
	scopes []string
}

// okBody is the bodies of an operation whose one success is a 200 with a body of the
// schema component comp ("" keeps the base's).
func okBody(comp string) map[int]string { return map[int]string{http.StatusOK: comp} }

// queryParam is a query parameter of an operation.
type queryParam struct {
	name     string
	required bool
	schema   map[string]any // JSON Schema of the value, from the constants the handler checks with
	// shared names the parameter component (components/parameters) the base refers to
	// when several operations take the parameter with the same prose; "" when the base
	// writes it in the operation.
	shared string
}

// queryNames are the names of op's query parameters.
func (op operation) queryNames() []string {
	names := make([]string, len(op.query))
	for i, q := range op.query {
		names[i] = q.name
	}
	return names
}

// operationPaths makes the document's paths: the base's path items (the prose) with each
// declared operation's operationId, summary, query parameter schemas, success body schemas
// and error responses set from its declaration. A base operation no declaration names, or a
// response or query parameter the base writes that the declaration does not, is an error:
// the document describes what is served and nothing else. The schemas of the shared query
// parameters the operations refer to are set in shared (the base's
// components/parameters). The document's paths are prefix + the operations' (routed)
// paths.
func operationPaths(base json.RawMessage, shared map[string]map[string]any, ops []operation, prefix string) (json.RawMessage, error) {
	var paths map[string]map[string]any
	if err := json.Unmarshal(base, &paths); err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	declared, done := map[string]bool{}, map[string]bool{}
	for _, op := range ops {
		at := op.method + " " + prefix + op.path
		declared[at] = true
		item := paths[prefix+op.path]
		o, _ := item[strings.ToLower(op.method)].(map[string]any)
		if o == nil {
			return nil, fmt.Errorf("openapi: %s has no prose in the base document", at)
		}
		o["operationId"], o["summary"] = op.id, op.summary
		if op.description != "" {
			if _, twice := o["description"]; twice {
				return nil, fmt.Errorf("openapi: %s has its description in both its declaration and the base document", at)
			}
			o["description"] = op.description
		}
		if len(op.scopes) > 0 {
			o["security"] = []any{map[string]any{"bearerAuth": op.scopes}}
		}
		if err := setQueryParams(o, shared, done, op, at); err != nil {
			return nil, err
		}
		responses, _ := o["responses"].(map[string]any)
		for code := range responses {
			n, _ := strconv.Atoi(code)
			_, ok := op.bodies[n]
			if _, isErr := op.errors[n]; !ok && !isErr {
				return nil, fmt.Errorf("openapi: %s: the base documents status %s, which the declaration does not", at, code)
			}
		}
		for code, comp := range op.bodies {
			r, _ := responses[strconv.Itoa(code)].(map[string]any)
			if r == nil {
				return nil, fmt.Errorf("openapi: %s: status %d has no prose in the base document", at, code)
			}
			if comp != "" { // the schema from the declaration, the base's examples kept
				content, _ := r["content"].(map[string]any)
				if content == nil {
					content = map[string]any{}
					r["content"] = content
				}
				media, _ := content["application/json"].(map[string]any)
				if media == nil {
					media = map[string]any{}
					content["application/json"] = media
				}
				media["schema"] = map[string]any{"$ref": "#/components/schemas/" + comp}
			}
		}
		for code, comp := range op.errors {
			responses[strconv.Itoa(code)] = map[string]any{"$ref": "#/components/responses/" + comp}
		}
	}
	for path, item := range paths {
		for method := range item {
			if slices.Contains(openAPIMethodKeys, method) && !declared[strings.ToUpper(method)+" "+path] {
				return nil, fmt.Errorf("openapi: the base documents %s %s, which no operation declares", strings.ToUpper(method), path)
			}
		}
	}
	out, err := json.Marshal(paths)
	if err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	return out, nil
}

// openAPIMethodKeys are the operation keys of an OpenAPI path item.
var openAPIMethodKeys = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// setQueryParams sets the schemas of o's query parameters (and of the shared ones it
// refers to) from op's, keeping the base's description and examples. A base query parameter
// op does not declare is an error, and so is a shared one declared with another schema
// than an operation before (done lists the shared ones set).
func setQueryParams(o map[string]any, shared map[string]map[string]any, done map[string]bool, op operation, at string) error {
	params, _ := o["parameters"].([]any)
	seen := map[string]bool{}
	for _, p := range params {
		pm, _ := p.(map[string]any)
		ref, _ := pm["$ref"].(string)
		sharedName, isShared := strings.CutPrefix(ref, "#/components/parameters/")
		if isShared {
			pm = shared[sharedName]
		}
		if pm["in"] != "query" {
			continue
		}
		name, _ := pm["name"].(string)
		i := slices.IndexFunc(op.query, func(q queryParam) bool { return q.name == name })
		if i < 0 {
			return fmt.Errorf("openapi: %s: the base documents query parameter %s, which the declaration does not", at, name)
		}
		seen[name] = true
		q := op.query[i]
		if q.shared != sharedName { // sharedName is "" when the base does not refer to a shared one
			return fmt.Errorf("openapi: %s: query parameter %s is declared shared as %q, the base refers to %q", at, name, q.shared, sharedName)
		}
		schema := maps.Clone(q.schema)
		base, _ := pm["schema"].(map[string]any)
		if base["examples"] != nil {
			schema["examples"] = base["examples"]
		}
		if isShared && done[sharedName] && !reflect.DeepEqual(base, schema) {
			return fmt.Errorf("openapi: %s: shared query parameter %s is declared with two schemas", at, name)
		}
		pm["schema"], pm["required"] = schema, q.required
		if isShared {
			done[sharedName] = true
		}
	}
	for _, q := range op.query {
		if !seen[q.name] {
			return fmt.Errorf("openapi: %s: query parameter %s has no prose in the base document", at, q.name)
		}
	}
	return nil
}
