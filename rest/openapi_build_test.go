package rest

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestOpenAPISchemaExtrasAreExtra: openapi/v1.schemas.json says only what the Go types
// cannot (formats, patterns, examples, descriptions of untagged fields, the sandbox
// marker), so that a property's type, nullability, required-ness, description and the
// domain's enumerations have one source.
func TestOpenAPISchemaExtrasAreExtra(t *testing.T) {
	for _, d := range []struct {
		name         string
		base, extras []byte
		comps        []component
		enums        map[string][]string
		limits       map[string]map[string]any
	}{
		{"v1", openAPIV1Base, openAPIV1Extras, v1Components, v1Enums, nil},
		{"v2", openAPIV2Base, openAPIV2Extras, v2Components, v2Enums, v2Limits},
	} {
		t.Run(d.name, func(t *testing.T) { checkExtras(t, d.base, d.extras, d.comps, d.enums, d.limits) })
	}
}

func checkExtras(t *testing.T, base, extrasJSON []byte, comps []component, enums map[string][]string, limits map[string]map[string]any) {
	var extras map[string]map[string]any
	if err := json.Unmarshal(extrasJSON, &extras); err != nil {
		t.Fatal(err)
	}
	types := map[string]reflect.Type{}
	for _, c := range comps {
		types[c.name] = c.typ
		if strings.Contains(string(base), `"`+c.name+`": {`) {
			t.Errorf("the base document still writes the %s schema, which is generated", c.name)
		}
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
			for _, k := range []string{"type", "$ref"} {
				if _, ok := p[k]; ok {
					t.Errorf("%s.%s: extras set %s, which %s says", name, prop, k, typ)
				}
			}
			// The items' type is the field's; a pattern or format of the items is not.
			items, _ := p["items"].(map[string]any)
			for _, k := range []string{"type", "$ref"} {
				if _, ok := items[k]; ok {
					t.Errorf("%s.%s: extras set items.%s, which %s says", name, prop, k, typ)
				}
			}
			if p["format"] == "int64" {
				t.Errorf("%s.%s: extras set format int64, which the field's type says", name, prop)
			}
			if _, ok := p["description"]; ok && f.Tag.Get("jsonschema") != "" {
				t.Errorf("%s.%s: described twice: in the extras and in the jsonschema tag of %s", name, prop, typ)
			}
			if _, ok := p["enum"]; ok && enums[name+"."+prop] != nil {
				t.Errorf("%s.%s: enumerated twice: in the extras and in v1Enums", name, prop)
			}
			for k, v := range limits[name+"."+prop] {
				if _, ok := p[k]; ok && reflect.TypeOf(v).Kind() != reflect.Map {
					t.Errorf("%s.%s: %s set twice: in the extras and in v2Limits", name, prop, k)
				}
			}
		}
	}
}

// TestOAValidateIsStrict: the validator the document tests use refuses what the served
// document does not describe: a wrong type, a missing required property, a property no
// schema lists, a value outside an enumeration, a malformed URI.
func TestOAValidateIsStrict(t *testing.T) {
	doc := oaLoad(t, openAPIV1)
	result := map[string]any{"title": "T", "summary": "S", "url": "https://x.example/a", "markdownUrl": "https://x.example/a.md",
		"type": "service", "updatedAt": nil, "highlight": "h"}
	with := func(k string, v any) map[string]any {
		m := maps.Clone(result)
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	ref := map[string]any{"$ref": "#/components/schemas/SearchResult"}
	if errs := oaValidate(doc, ref, result, "valid"); len(errs) > 0 {
		t.Fatalf("a valid result refused: %v", errs)
	}
	for name, v := range map[string]map[string]any{
		"wrong_type":          with("title", 3.0),
		"missing_required":    with("title", nil),
		"undocumented":        with("score", 1.0),
		"outside_enumeration": with("type", "Docs"),
		"not_a_uri":           with("url", "not a uri"),
	} {
		if errs := oaValidate(doc, ref, v, name); len(errs) == 0 {
			t.Errorf("%s: accepted %v", name, v)
		}
	}
}

// TestOpenAPIDocumentsAreValid lints the served documents with kin-openapi's OpenAPI 3.1
// validator (every $ref resolves, every operation and response is complete, every schema
// is well-formed), besides the project's own structural checks.
func TestOpenAPIDocumentsAreValid(t *testing.T) {
	for name, doc := range map[string][]byte{"v1": openAPIV1, "v2": openAPIV2} {
		t.Run(name, func(t *testing.T) {
			l := openapi3.NewLoader()
			d, err := l.LoadFromData(doc)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if d.OpenAPI != "3.1.0" {
				t.Errorf("openapi %q, want 3.1.0", d.OpenAPI)
			}
			if err := d.Validate(context.Background()); err != nil {
				t.Errorf("invalid: %v", err)
			}
		})
	}
}
