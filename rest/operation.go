package rest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// operation is one operation of an API, declared once, beside its handler (each API's
// declaration type adds the handler and how it is routed): the router serves it from this
// declaration and the OpenAPI document's paths describe it from the
// same one (operationPaths). The declaration holds what the code decides (method, path,
// operationId, summary, the query parameters and their schemas from the rule's constants,
// the schema of each success body, the error responses); the document's base file holds
// only the prose of the operation (description, tags, the descriptions and headers of its
// responses, the descriptions and examples of its parameters).
type operation struct {
	method, path string // path as OpenAPI and chi both write it: /batch/jobs/{jobId}
	id, summary  string
	query        []queryParam   // the query parameters it takes; any other is a 400
	bodies       map[int]string // success status → schema component of the body ("" keeps the base's)
	errors       map[int]string // error status → response component
}

// queryParam is a query parameter of an operation.
type queryParam struct {
	name     string
	required bool
	schema   map[string]any // JSON Schema of the value, from the constants the handler checks with
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
// the document describes what is served and nothing else.
//
// With declaresQuery false (the customer API, some of whose query parameters are still
// written in its base document), a base query parameter no declaration names is kept.
// The document's paths are prefix + the operations' (routed) paths.
func operationPaths(base json.RawMessage, ops []operation, prefix string, declaresQuery bool) (json.RawMessage, error) {
	var paths map[string]map[string]any
	if err := json.Unmarshal(base, &paths); err != nil {
		return nil, fmt.Errorf("openapi paths: %w", err)
	}
	declared := map[string]bool{}
	for _, op := range ops {
		at := op.method + " " + prefix + op.path
		declared[at] = true
		item := paths[prefix+op.path]
		o, _ := item[strings.ToLower(op.method)].(map[string]any)
		if o == nil {
			return nil, fmt.Errorf("openapi: %s has no prose in the base document", at)
		}
		o["operationId"], o["summary"] = op.id, op.summary
		if err := setQueryParams(o, op, at, declaresQuery); err != nil {
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

// setQueryParams sets the schemas of o's query parameters from op's, keeping the base's
// description and examples. With strict, a base query parameter op does not declare is an
// error.
func setQueryParams(o map[string]any, op operation, at string, strict bool) error {
	params, _ := o["parameters"].([]any)
	seen := map[string]bool{}
	for _, p := range params {
		pm, _ := p.(map[string]any)
		if pm["in"] != "query" {
			continue
		}
		name, _ := pm["name"].(string)
		i := slices.IndexFunc(op.query, func(q queryParam) bool { return q.name == name })
		if i < 0 && !strict {
			continue
		}
		if i < 0 {
			return fmt.Errorf("openapi: %s: the base documents query parameter %s, which the declaration does not", at, name)
		}
		seen[name] = true
		q := op.query[i]
		schema := maps.Clone(q.schema)
		if base, _ := pm["schema"].(map[string]any); base["examples"] != nil {
			schema["examples"] = base["examples"]
		}
		pm["schema"], pm["required"] = schema, q.required
	}
	for _, q := range op.query {
		if !seen[q.name] {
			return fmt.Errorf("openapi: %s: query parameter %s has no prose in the base document", at, q.name)
		}
	}
	return nil
}
