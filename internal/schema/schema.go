// Package schema makes the JSON Schemas of the API's Go types: the MCP tools' output schemas
// and the OpenAPI documents' components come from this one reflection (google/jsonschema-go;
// a field's `jsonschema` tag is its description), so a field added to a type appears in both.
package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/answerdesk/answerdesk"
)

// selfEncoded are the schemas of the domain types whose JSON is not their Go shape.
var selfEncoded = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[answerdesk.Time](): {Type: "string", Format: "date-time",
		Description: "ISO 8601 in UTC with milliseconds, e.g. 2026-11-22T09:15:02.123Z."},
	reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "The script's answers: question name to answer."},
	// A request's list of values each of which its rule decodes (a schedule's days).
	reflect.TypeFor[[]json.RawMessage](): {Type: "array"},
	// A request's number, kept as given to be checked as an integer by its rule, which
	// states its range (no format: the range says more than a width).
	reflect.TypeFor[json.Number](): {Type: "integer"},
	reflect.TypeFor[answerdesk.PageMeta](): {
		Type: "object", Description: "Where this page is in the whole list.",
		Properties: map[string]*jsonschema.Schema{
			"page":        {Type: "integer", Description: "1-based number of this page."},
			"page_size":   {Type: "integer", Description: "Maximum number of items per page."},
			"total":       {Type: "integer", Description: "Number of items matching the filters, over all pages."},
			"total_pages": {Type: "integer", Description: "Number of pages. Omitted on a random sample (sample=true), which has no pages."},
		},
		Required:             []string{"page", "page_size", "total"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	},
}

// Of returns the schema of t. Types named in refs are not inlined but referred to by the
// $ref given (an OpenAPI component); a nullable reference is {"anyOf": [ref, null]}.
//
// A request body's answerdesk.Opt[T] property has the schema of T. It is required unless
// its json tag says omitzero (see OptionalNull).
func Of(t reflect.Type, refs map[reflect.Type]string) (*jsonschema.Schema, error) {
	types := make(map[reflect.Type]*jsonschema.Schema, len(selfEncoded)+len(refs))
	for rt, s := range selfEncoded {
		types[rt] = s
	}
	for rt, ref := range refs {
		if rt != t {
			types[rt] = &jsonschema.Schema{Ref: ref}
		}
	}
	if err := optSchemas(t, types, refs); err != nil {
		return nil, err
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: types})
	if err != nil {
		return nil, fmt.Errorf("schema of %v: %w", t, err)
	}
	Walk(s, func(s *jsonschema.Schema) {
		if s.Ref != "" && len(s.Types) == 1 && s.Types[0] == "null" {
			s.AnyOf = []*jsonschema.Schema{{Ref: s.Ref}, {Type: "null"}}
			s.Ref, s.Types = "", nil
		}
	})
	return s, nil
}

// optValue returns T of an answerdesk.Opt[T] type t.
func optValue(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() != reflect.Struct || t.PkgPath() != reflect.TypeFor[answerdesk.Opt[int]]().PkgPath() || !strings.HasPrefix(t.Name(), "Opt[") {
		return nil, false
	}
	f, _ := t.FieldByName("Value")
	return f.Type, true
}

// optSchemas adds to types the schema of each Opt[T] type under t (t's fields, their
// elements and their fields): T's, made by Of.
func optSchemas(t reflect.Type, types map[reflect.Type]*jsonschema.Schema, refs map[reflect.Type]string) error {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return optSchemas(t.Elem(), types, refs)
	case reflect.Struct:
	default:
		return nil
	}
	if _, done := types[t]; done {
		return nil
	}
	if v, ok := optValue(t); ok {
		if err := optSchemas(v, types, refs); err != nil {
			return err
		}
		s, ok := types[v]
		if !ok {
			var err error
			if s, err = Of(v, refs); err != nil {
				return err
			}
			OptionalNull(v, s)
		}
		types[t] = s
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if err := optSchemas(f.Type, types, refs); err != nil {
			return err
		}
	}
	return nil
}

// OptionalNull lets the optional Opt properties of s, t's schema, be null: a request takes
// null as leaving the property out, unless the field is tagged null:"refused".
func OptionalNull(t reflect.Type, s *jsonschema.Schema) {
	eachProperty(t, s, func(f reflect.StructField, _ string, opts []string, p *jsonschema.Schema) {
		if _, isOpt := optValue(f.Type); isOpt && slices.Contains(opts, "omitzero") && f.Tag.Get("null") != "refused" {
			allowNull(p)
		}
	})
}

// eachProperty calls fn with each field of t, a struct type or a pointer to one, that has a
// property in s, t's schema: the field, its property's name, the options of its json tag
// and the property's schema. A field without a json name has its Go name, as in
// encoding/json. It is the one walk of the functions that adjust a schema field by field.
func eachProperty(t reflect.Type, s *jsonschema.Schema, fn func(f reflect.StructField, name string, opts []string, p *jsonschema.Schema)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || s == nil {
		return
	}
	for _, f := range reflect.VisibleFields(t) {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if p := s.Properties[name]; p != nil {
			fn(f, name, strings.Split(opts, ","), p)
		}
	}
}

// allowNull widens p to take null as well.
func allowNull(p *jsonschema.Schema) {
	switch {
	case p.Ref != "":
		*p = jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Ref: p.Ref}, {Type: "null"}}, Description: p.Description}
	case p.Type != "":
		p.Types, p.Type = []string{p.Type, "null"}, ""
	case len(p.Types) > 0 && !slices.Contains(p.Types, "null"):
		p.Types = append(slices.Clone(p.Types), "null")
	}
}

// PlainOptionalNull lets the optional properties of s, the schema of request type t, that
// are not Opt fields be null: encoding/json leaves such a field as it was on null, so null
// is the same as leaving the property out. (Opt fields say it themselves: OptionalNull.)
func PlainOptionalNull(t reflect.Type, s *jsonschema.Schema) {
	eachProperty(t, s, func(f reflect.StructField, name string, _ []string, p *jsonschema.Schema) {
		if _, isOpt := optValue(f.Type); !f.Anonymous && !isOpt && !slices.Contains(s.Required, name) {
			allowNull(p)
		}
	})
}

// Refused makes the schema of each property of s, t's schema, whose field is tagged
// refused:"true" one that no value satisfies (not anyValue, with the field's description):
// a request that names the property, even as null, is refused.
func Refused(t reflect.Type, s *jsonschema.Schema) {
	eachProperty(t, s, func(f reflect.StructField, _ string, _ []string, p *jsonschema.Schema) {
		if f.Tag.Get("refused") == "true" {
			*p = jsonschema.Schema{Description: p.Description, Not: anyValue()}
		}
	})
}

// anyValue is a schema every value satisfies, written as an object: the library writes an
// empty schema as the boolean true, which OpenAPI 3.0 tools (oapi-codegen, Redocly) refuse
// where a schema object is due.
func anyValue() *jsonschema.Schema {
	return &jsonschema.Schema{Description: "Any value."}
}

// For is Of for type T, every type inlined.
func For[T any]() (*jsonschema.Schema, error) { return Of(reflect.TypeFor[T](), nil) }

// NonNullArrays makes every ["null", "array"] of s "array": the API's lists are never null.
func NonNullArrays(s *jsonschema.Schema) {
	Walk(s, func(s *jsonschema.Schema) {
		if len(s.Types) == 2 && (s.Types[0] == "null" && s.Types[1] == "array" || s.Types[0] == "array" && s.Types[1] == "null") {
			s.Type, s.Types = "array", nil
		}
	})
}

// Walk calls fn on s and every schema below it (properties, items, anyOf, oneOf, allOf).
func Walk(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	for _, p := range s.Properties {
		Walk(p, fn)
	}
	Walk(s.Items, fn)
	Walk(s.AdditionalProperties, fn)
	for _, l := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf} {
		for _, c := range l {
			Walk(c, fn)
		}
	}
}

// OmittedNotNull drops null from the schemas of t's pointer fields tagged omitempty: such a
// field is left out when nil, so it is never null. (The reflection allows null for every
// pointer.)
func OmittedNotNull(t reflect.Type, s *jsonschema.Schema) {
	eachProperty(t, s, func(f reflect.StructField, _ string, opts []string, p *jsonschema.Schema) {
		if f.Type.Kind() == reflect.Pointer && slices.Contains(opts, "omitempty") {
			dropNull(p)
		}
	})
}

// NonNullItems makes the items of every array of s non-null: the API's lists hold no nulls
// (a []*T is never given a nil element).
func NonNullItems(s *jsonschema.Schema) {
	Walk(s, func(s *jsonschema.Schema) {
		it := s.Items
		if it == nil {
			return
		}
		if len(it.AnyOf) == 2 && it.AnyOf[1].Type == "null" && it.AnyOf[0].Ref != "" {
			s.Items = it.AnyOf[0]
			return
		}
		dropNull(it)
	})
}

// dropNull narrows p's list of types to leave null out (allowNull's converse), a single
// type left written as type.
func dropNull(p *jsonschema.Schema) {
	if i := slices.Index(p.Types, "null"); i >= 0 {
		p.Types = slices.Delete(slices.Clone(p.Types), i, i+1)
		if len(p.Types) == 1 {
			p.Type, p.Types = p.Types[0], nil
		}
	}
}

// NullLast orders every list of types of s with "null" last (["string", "null"]), as
// OpenAPI documents conventionally write a nullable type.
func NullLast(s *jsonschema.Schema) {
	Walk(s, func(s *jsonschema.Schema) {
		if i := slices.Index(s.Types, "null"); i >= 0 && i < len(s.Types)-1 {
			s.Types = append(slices.Delete(slices.Clone(s.Types), i, i+1), "null")
		}
	})
}

// Int64Format marks the schemas of t's int and int64 fields "format": "int64", as OpenAPI
// documents the width of an integer (an int is 64 bits wide wherever the server runs).
func Int64Format(t reflect.Type, s *jsonschema.Schema) {
	eachProperty(t, s, func(f reflect.StructField, _ string, _ []string, p *jsonschema.Schema) {
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (ft.Kind() == reflect.Int64 || ft.Kind() == reflect.Int) && ft.PkgPath() == "" {
			p.Format = "int64"
		}
	})
}

// The envelopes of the customer API's bodies (the customer API conventions (Getting started docs page)): one object, a list without
// paging, and one page of a list. The MCP account tools answer with the same shapes.
type (
	// One is {"data": object}.
	One[T any] struct {
		Data T `json:"data"`
	}
	// All is {"data": [objects]}.
	All[T any] struct {
		Data []T `json:"data"`
	}
	// Page is {"data": [objects], "meta": {...}}.
	Page[T any] struct {
		Data []T                 `json:"data"`
		Meta answerdesk.PageMeta `json:"meta"`
	}
)
