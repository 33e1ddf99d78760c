package mcp_test

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/mcp"
	"github.com/answerdesk/answerdesk/rest"
)

// constraintKeywords are what a tool argument must state as the API does: its type, its
// values, its lengths, its bounds, its pattern.
var constraintKeywords = []string{"type", "enum", "anyOf", "oneOf", "const", "format", "minLength", "maxLength",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "pattern", "items", "not", "default"}

// TestAccountToolsMirrorOpenAPI: every account tool names the operation it mirrors in its
// description ("as GET /api/v2/messages"), and its arguments are that operation's path and
// query parameters and body properties (the message object of POST /api/v2/messages),
// each stating what /api/v2/openapi.json states of it: no argument more or less, and no
// disagreement on type, values, lengths, bounds or pattern.
func TestAccountToolsMirrorOpenAPI(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(rest.OpenAPIV2(), &doc); err != nil {
		t.Fatal(err)
	}
	components := doc["components"].(map[string]any)
	deref := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		for i := 0; i < 5; i++ {
			ref, ok := m["$ref"].(string)
			if !ok {
				break
			}
			parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
			m = components[parts[0]].(map[string]any)[parts[1]].(map[string]any)
		}
		return m
	}
	paths := doc["paths"].(map[string]any)
	asOperation := regexp.MustCompile(`as (GET|POST|PATCH|DELETE) (/api/v2/[^\s:,]*[^\s:,.])`)

	s := mcp.NewAccountServer(mcp.TestConfig(t, mcp.SnapshotBase), mcp.DefinitionsOnly)
	tools := s.ListTools()
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		tool := tools[name].Tool
		t.Run(name, func(t *testing.T) {
			m := asOperation.FindStringSubmatch(tool.Description)
			if m == nil {
				t.Fatalf("the description names no operation (as METHOD /api/v2/...): %q", tool.Description)
			}
			item, ok := paths[m[2]].(map[string]any)
			op, _ := item[strings.ToLower(m[1])].(map[string]any)
			if !ok || op == nil {
				t.Fatalf("%s %s is not in /api/v2/openapi.json", m[1], m[2])
			}
			want := map[string]map[string]any{}
			params, _ := op["parameters"].([]any)
			for _, raw := range params {
				p := deref(raw)
				if in := p["in"]; in == "path" || in == "query" {
					want[p["name"].(string)] = deref(p["schema"])
				}
			}
			if rb, ok := op["requestBody"].(map[string]any); ok {
				body := deref(rb["content"].(map[string]any)["application/json"].(map[string]any)["schema"])
				props := body["properties"].(map[string]any)
				if msg, ok := props["message"]; ok && len(props) == 1 {
					props = deref(msg)["properties"].(map[string]any)
				}
				for n, p := range props {
					want[n] = deref(p)
				}
			}
			var got map[string]map[string]any
			raw, _ := json.Marshal(tool.InputSchema.Properties)
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)); !slices.Equal(g, w) {
				t.Fatalf("arguments %v, want the operation's %v", g, w)
			}
			for arg, w := range want {
				for _, k := range constraintKeywords {
					if k == "items" || k == "anyOf" || k == "oneOf" {
						// Compared whole, references resolved as the tool has them.
						if !jsonEqual(resolveAll(w[k], deref), got[arg][k]) {
							t.Errorf("%s.%s: %s, the API says %s", arg, k, js(got[arg][k]), js(w[k]))
						}
						continue
					}
					if !jsonEqual(w[k], got[arg][k]) {
						t.Errorf("%s.%s: %s, the API says %s", arg, k, js(got[arg][k]), js(w[k]))
					}
				}
			}
		})
	}
}

// resolveAll replaces every $ref in v by what deref finds.
func resolveAll(v any, deref func(any) map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["$ref"]; ok {
			return resolveAll(deref(x), deref)
		}
		out := map[string]any{}
		for k, val := range x {
			out[k] = resolveAll(val, deref)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = resolveAll(val, deref)
		}
		return out
	}
	return v
}

func jsonEqual(a, b any) bool { return js(a) == js(b) }

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
