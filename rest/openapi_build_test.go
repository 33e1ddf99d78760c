package rest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestOpenAPISchemaExtrasAreExtra: openapi/v1.schemas.json says only what the Go types
// cannot (formats, patterns, examples, descriptions of untagged fields, the sandbox
// marker), so that a property's type, nullability, required-ness, description and the
// domain's enumerations have one source.
func TestOpenAPISchemaExtrasAreExtra(t *testing.T) {
	var extras map[string]map[string]any
	if err := json.Unmarshal(openAPIV1Extras, &extras); err != nil {
		t.Fatal(err)
	}
	types := map[string]reflect.Type{}
	for _, c := range v1Components {
		types[c.name] = c.typ
	}
	for name, extra := range extras {
		typ, ok := types[name]
		if !ok {
			t.Errorf("%s: extras of a schema no Go type generates", name)
			continue
		}
		for _, k := range []string{"type", "required"} {
			if _, ok := extra[k]; ok {
				t.Errorf("%s: extras set %s, which the type says", name, k)
			}
		}
		props, _ := extra["properties"].(map[string]any)
		fields := oaJSONFields(typ)
		for prop, v := range props {
			p, _ := v.(map[string]any)
			f, isField := fields[prop]
			if !isField {
				continue // a property no field encodes (sandbox)
			}
			for _, k := range []string{"type", "$ref", "items"} {
				if _, ok := p[k]; ok {
					t.Errorf("%s.%s: extras set %s, which %s says", name, prop, k, typ)
				}
			}
			if _, ok := p["description"]; ok && f.Tag.Get("jsonschema") != "" {
				t.Errorf("%s.%s: described twice: in the extras and in the jsonschema tag of %s", name, prop, typ)
			}
			if _, ok := p["enum"]; ok && v1Enums[name+"."+prop] != nil {
				t.Errorf("%s.%s: enumerated twice: in the extras and in v1Enums", name, prop)
			}
		}
	}
	if strings.Contains(string(openAPIV1Base), `"Company"`+":") {
		t.Error("the base document still writes the Company schema, which is generated")
	}
}
