package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// apiArgs reads the arguments of the account tools from the customer API's OpenAPI
// document, the one /api/v2/openapi.json serves: a tool that mirrors an operation takes
// the operation's path and query parameters and its body's properties, each with the
// document's schema (type, enumeration, lengths, bounds, pattern, default). So a rule the
// API states in one place (a limit, the values of a filter) is the tool's too.
type apiArgs struct {
	ops     map[string]map[string]any // operationId → the operation object
	params  map[string]any            // components.parameters
	schemas map[string]any            // components.schemas
}

// newAPIArgs reads doc, an OpenAPI document.
func newAPIArgs(doc []byte) (*apiArgs, error) {
	var d struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]any `json:"parameters"`
			Schemas    map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("read the API's OpenAPI document: %w", err)
	}
	a := &apiArgs{ops: map[string]map[string]any{}, params: d.Components.Parameters, schemas: d.Components.Schemas}
	for path, item := range d.Paths {
		for method, raw := range item {
			var op map[string]any
			if json.Unmarshal(raw, &op) != nil {
				continue // the path item's parameters or summary, not an operation
			}
			if id, ok := op["operationId"].(string); ok {
				if _, dup := a.ops[id]; dup {
					return nil, fmt.Errorf("the API's OpenAPI document: operation %s twice (at %s %s)", id, method, path)
				}
				a.ops[id] = op
			}
		}
	}
	return a, nil
}

// toolArgs are the arguments of a tool: their schemas by name, and the required ones.
type toolArgs struct {
	props    map[string]any
	required []string
}

// names are the arguments' names, sorted: what the tool accepts.
func (t toolArgs) names() []string { return slices.Sorted(maps.Keys(t.props)) }

// option sets the tool's input schema to the arguments, refusing any other.
func (t toolArgs) option() mcpgo.ToolOption {
	return func(tool *mcpgo.Tool) {
		tool.InputSchema = mcpgo.ToolInputSchema{Type: "object", Properties: t.props, Required: t.required, AdditionalProperties: false}
	}
}

// idChecker is the check of the id argument against the pattern the operation's path
// parameter states (a To Do's id is digits), nil when it states none: a value that
// cannot match is a bad argument, named, rather than an id that finds nothing.
func (t toolArgs) idChecker() func(p *params) {
	s, _ := t.props["id"].(map[string]any)
	pattern, _ := s["pattern"].(string)
	if pattern == "" {
		return func(*params) {}
	}
	re := regexp.MustCompile(pattern) // the document's, checked by every test that builds the server
	return func(p *params) {
		if id, ok := p.optID("id"); ok && !re.MatchString(id) {
			p.v.Add("id", "must match "+pattern)
		}
	}
}

// describe replaces the descriptions of the named arguments: the tools speak to a model,
// which needs examples and the tool names where the API's prose speaks to a developer.
// Only descriptions change; an argument the tool lacks is a programming error.
func (t toolArgs) describe(descriptions map[string]string) toolArgs {
	for name, d := range descriptions {
		p, ok := t.props[name].(map[string]any)
		if !ok {
			panic(fmt.Sprintf("mcp: a description for %s, which the operation does not take", name))
		}
		p["description"] = d
	}
	return t
}

// operation returns the arguments of operation id: its path and query parameters, then the
// properties of its JSON body; with inner, the properties of the body's property of that
// name (the object a wrapping body carries). Body properties keep the document's schema,
// references resolved, without the conditions between properties ("allOf", "if"): those
// the service checks, and the tool's description says.
func (a *apiArgs) operation(id, inner string) (toolArgs, error) {
	op, ok := a.ops[id]
	if !ok {
		return toolArgs{}, fmt.Errorf("the API's OpenAPI document has no operation %s", id)
	}
	out := toolArgs{props: map[string]any{}}
	params, _ := op["parameters"].([]any)
	for _, raw := range params {
		p, err := a.resolve(raw)
		if err != nil {
			return toolArgs{}, fmt.Errorf("operation %s: %w", id, err)
		}
		name, _ := p["name"].(string)
		in, _ := p["in"].(string)
		if in != "path" && in != "query" {
			continue
		}
		s, _ := p["schema"].(map[string]any)
		s = clone(s)
		if d, ok := p["description"].(string); ok {
			s["description"] = d
		}
		out.props[name] = s
		if req, _ := p["required"].(bool); req || in == "path" {
			out.required = append(out.required, name)
		}
	}
	body, err := a.body(op, inner)
	if err != nil {
		return toolArgs{}, fmt.Errorf("operation %s: %w", id, err)
	}
	if body != nil {
		props, _ := body["properties"].(map[string]any)
		for name, p := range props {
			if _, dup := out.props[name]; dup {
				return toolArgs{}, fmt.Errorf("operation %s: %s is both a parameter and a body property", id, name)
			}
			out.props[name] = p
		}
		req, _ := body["required"].([]any)
		for _, r := range req {
			out.required = append(out.required, r.(string))
		}
	}
	slices.Sort(out.required)
	return out, nil
}

// body is the resolved schema of op's JSON request body (of its property inner, when
// given), or nil when it takes none.
func (a *apiArgs) body(op map[string]any, inner string) (map[string]any, error) {
	rb, _ := op["requestBody"].(map[string]any)
	content, _ := rb["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	if media == nil {
		return nil, nil
	}
	s, err := a.schema(media["schema"])
	if err != nil {
		return nil, err
	}
	if inner != "" {
		props, _ := s["properties"].(map[string]any)
		in, ok := props[inner].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("the body has no property %s", inner)
		}
		s = in
	}
	return s, nil
}

// resolve follows a parameter's $ref into components.parameters.
func (a *apiArgs) resolve(raw any) (map[string]any, error) {
	p, _ := raw.(map[string]any)
	if ref, ok := p["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/components/parameters/")
		if q, ok := a.params[name].(map[string]any); found && ok {
			return q, nil
		}
		return nil, fmt.Errorf("parameter %s is not in the document", ref)
	}
	if p == nil {
		return nil, fmt.Errorf("a parameter that is not an object")
	}
	return p, nil
}

// schema is a copy of the schema s with every $ref to components.schemas replaced by the
// schema it names, and without conditions between properties.
func (a *apiArgs) schema(s any) (map[string]any, error) {
	out, err := a.inline(s, 0, false)
	if err != nil {
		return nil, err
	}
	m, _ := out.(map[string]any)
	if m == nil {
		return nil, fmt.Errorf("a schema that is not an object")
	}
	return m, nil
}

// inline is schema's work on any JSON value, depth deep in references; names says v is
// a map of property names, whose keys are names rather than keywords.
func (a *apiArgs) inline(v any, depth int, names bool) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name, found := strings.CutPrefix(ref, "#/components/schemas/")
			target, ok := a.schemas[name]
			if !found || !ok {
				return nil, fmt.Errorf("schema %s is not in the document", ref)
			}
			if depth > 8 {
				return nil, fmt.Errorf("schema %s refers to itself", ref)
			}
			return a.inline(target, depth+1, false)
		}
		out := make(map[string]any, len(x))
		for k, val := range x {
			if !names && (k == "allOf" || k == "if" || k == "then" || k == "else") {
				continue
			}
			c, err := a.inline(val, depth, !names && (k == "properties" || k == "$defs"))
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			c, err := a.inline(val, depth, false)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

// clone is a deep copy of a JSON object.
func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m) // decoded from JSON, so it encodes
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = map[string]any{}
	}
	return out
}
