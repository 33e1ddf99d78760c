package schema_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/schema"
)

type inner struct {
	N int `json:"n"`
}

type outer struct {
	ID       int64           `json:"id" jsonschema:"The id."`
	Optional *string         `json:"optional,omitempty"`
	Nullable *string         `json:"nullable"`
	In       *inner          `json:"in"`
	List     []*inner        `json:"list"`
	At       answerdesk.Time `json:"at"`
}

// TestOf: the reflection gives descriptions from the tags, refers to the named types, and
// the OpenAPI refinements say what the Go types say about null, width and order.
func TestOf(t *testing.T) {
	s, err := schema.Of(reflect.TypeFor[outer](), map[reflect.Type]string{reflect.TypeFor[inner](): "#/components/schemas/Inner"})
	if err != nil {
		t.Fatal(err)
	}
	schema.NonNullArrays(s)
	schema.NonNullItems(s)
	schema.OmittedNotNull(reflect.TypeFor[outer](), s)
	schema.Int64Format(reflect.TypeFor[outer](), s)
	schema.NullLast(s)
	got := map[string]string{}
	for name, p := range s.Properties {
		b, _ := json.Marshal(p)
		got[name] = string(b)
	}
	want := map[string]string{
		"id":       `{"type":"integer","description":"The id.","format":"int64"}`,
		"optional": `{"type":"string"}`,
		"nullable": `{"type":["string","null"]}`,
		"in":       `{"anyOf":[{"$ref":"#/components/schemas/Inner"},{"type":"null"}]}`,
		"list":     `{"type":"array","items":{"$ref":"#/components/schemas/Inner"}}`,
		"at":       `{"type":"string","description":"ISO 8601 in UTC with milliseconds, e.g. 2026-11-22T09:15:02.123Z.","format":"date-time"}`,
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %s, want %s", name, got[name], w)
		}
	}
	if len(s.Required) != 5 {
		t.Errorf("required %v, want every property but the omitempty one", s.Required)
	}
}

type request struct {
	Name   answerdesk.Opt[string]                  `json:"name" jsonschema:"Required."`
	Note   answerdesk.Opt[string]                  `json:"note,omitzero"`
	Inner  answerdesk.Opt[inner]                   `json:"inner,omitzero" null:"refused"`
	Items  answerdesk.Opt[[]answerdesk.Opt[inner]] `json:"items,omitzero"`
	Number answerdesk.Opt[json.Number]             `json:"number,omitzero"`
}

// TestOfRequest: an Opt property has its value's schema; it is required unless omitzero,
// and an optional one may be null unless tagged null:"refused".
func TestOfRequest(t *testing.T) {
	typ := reflect.TypeFor[request]()
	s, err := schema.Of(typ, map[reflect.Type]string{reflect.TypeFor[inner](): "#/components/schemas/Inner"})
	if err != nil {
		t.Fatal(err)
	}
	schema.NonNullArrays(s) // as rest's components are made
	schema.NonNullItems(s)
	schema.OptionalNull(typ, s)
	schema.NullLast(s)
	got, _ := json.Marshal(s.Properties)
	want := `{"inner":{"$ref":"#/components/schemas/Inner"},` +
		`"items":{"type":["array","null"],"items":{"$ref":"#/components/schemas/Inner"}},` +
		`"name":{"type":"string","description":"Required."},` +
		`"note":{"type":["string","null"]},` +
		`"number":{"type":["integer","null"]}}`
	if string(got) != want {
		t.Errorf("properties\n got %s\nwant %s", got, want)
	}
	if len(s.Required) != 1 || s.Required[0] != "name" {
		t.Errorf("required %v, want [name]", s.Required)
	}
}

type update struct {
	Fixed   answerdesk.Opt[string] `json:"fixed,omitzero" refused:"true" jsonschema:"Cannot be changed."`
	Name    *string                `json:"name,omitempty"`
	Tags    []string               `json:"tags,omitempty"`
	Admin   bool                   `json:"admin,omitempty"`
	Number  string                 `json:"number"`
	Comment answerdesk.Opt[string] `json:"comment,omitzero"`
}

// TestRequestRules: a refused property admits no value; an optional plain property of a
// request may be null (encoding/json takes null as absent), a required one may not.
func TestRequestRules(t *testing.T) {
	typ := reflect.TypeFor[update]()
	s, err := schema.Of(typ, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Required = []string{"number"}
	schema.NonNullArrays(s) // as rest's components are made
	schema.OmittedNotNull(typ, s)
	schema.OptionalNull(typ, s)
	schema.PlainOptionalNull(typ, s)
	schema.Refused(typ, s)
	schema.NullLast(s)
	got, _ := json.Marshal(s.Properties)
	want := `{"admin":{"type":["boolean","null"]},` +
		`"comment":{"type":["string","null"]},` +
		`"fixed":{"description":"Cannot be changed.","not":{"description":"Any value."}},` +
		`"name":{"type":["string","null"]},` +
		`"number":{"type":"string"},` +
		`"tags":{"type":["array","null"],"items":{"type":"string"}}}`
	if string(got) != want {
		t.Errorf("properties\n got %s\nwant %s", got, want)
	}
}
