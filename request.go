package answerdesk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Request bodies are decoded into structs of Opt fields (one struct per body: the
// ...Request types) by decodeRequest, the one decoding every parser shares, and then
// validated field by field so that a request reports every bad field at once. The rules of
// every body are the same: a property is matched by its exact name, an unknown one is
// ignored, null is the same as leaving the property out, and a value of the wrong JSON type
// is an error on that property, not on the body. The structs are also what the API
// reference's request schemas are generated from (rest/openapi.go).

// Opt is a property of a request body as the client gave it.
type Opt[T any] struct {
	Value T
	// Set: the property was given, not null, and a T.
	Set bool
	// Named: the property was in the body, null or of the wrong type included (an update
	// tells "clear it" from "leave it").
	Named bool
	// Wrong is, when the property was given as another JSON type, that type as
	// encoding/json names it ("number", "string", "number 1.5", "object", ...).
	Wrong string
}

// UnmarshalJSON records the property. It never fails, so the decoding of the body goes on
// to the next property. A struct T is decoded as a request body itself (decodeRequest).
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	*o = Opt[T]{Named: true}
	if string(b) == "null" {
		return nil
	}
	if reflect.TypeFor[T]().Kind() == reflect.Struct {
		if _, ok := decodeRequest(b, &o.Value); !ok {
			o.Wrong = jsonKind(b, nil)
			return nil
		}
	} else if _, isNumber := any(o.Value).(json.Number); isNumber && len(b) > 0 && b[0] == '"' {
		// encoding/json takes a string holding a number into a json.Number; the body's
		// rule is the JSON type, so "5" is a string, not an integer.
		o.Wrong = "string"
		return nil
	} else if err := json.Unmarshal(b, &o.Value); err != nil {
		// Value keeps what was decoded before the error, as a map or struct decoding would.
		o.Wrong = jsonKind(b, err)
		return nil
	}
	o.Set = true
	return nil
}

// Has reports whether the property was given a value (of the right type or not): named and
// not null.
func (o Opt[T]) Has() bool { return o.Set || o.Wrong != "" }

// jsonKind names the JSON type of b as encoding/json's type errors do: err's own words
// when it is one.
func jsonKind(b []byte, err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return typeErr.Value
	}
	switch s := strings.TrimSpace(string(b)); {
	case s == "":
		return "nothing"
	case s[0] == '{':
		return "object"
	case s[0] == '[':
		return "array"
	case s[0] == '"':
		return "string"
	case s == "true" || s == "false":
		return "bool"
	default:
		return "number"
	}
}

// decodeRequest decodes body, which must be one JSON object, into the struct in points to:
// each field (those of embedded structs included) takes the member of its exact json name.
// ok reports whether body was a JSON object; wrong lists the properties given a value of
// the wrong type, in field order (FieldError.Message is the type given). An Opt field
// records its own (a parser may say more than "wrong type"); another field's decoding fails.
func decodeRequest(body []byte, in any) (wrong []FieldError, ok bool) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, false
	}
	v := reflect.ValueOf(in).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		b, given := raw[name]
		if f.Anonymous || name == "" || name == "-" || !given {
			continue
		}
		fv := v.FieldByIndex(f.Index)
		if err := json.Unmarshal(b, fv.Addr().Interface()); err != nil {
			wrong = append(wrong, FieldError{Field: name, Message: jsonKind(b, err)})
		} else if w := optWrong(fv); w != "" {
			wrong = append(wrong, FieldError{Field: name, Message: w})
		}
	}
	return wrong, true
}

// optWrong is the Wrong of an Opt value, "" for anything else.
func optWrong(v reflect.Value) string {
	if v.Kind() != reflect.Struct {
		return ""
	}
	if _, isOpt := v.Type().FieldByName("Named"); !isOpt {
		return ""
	}
	if w := v.FieldByName("Wrong"); w.Kind() == reflect.String {
		return w.String()
	}
	return ""
}

// decodeBody is how every body parser starts: it decodes body, which must be one JSON
// object, into the request struct in points to (decodeRequest; each Opt field records a
// value of the wrong type for the parser to report), and applies the text rule (RefuseNUL).
// A body that is not an object is notObject.
func decodeBody(body []byte, in any, notObject error) error {
	if _, ok := decodeRequest(body, in); !ok {
		return notObject
	}
	return RefuseNUL(body)
}

// errNotObject is the error of a body that is not one JSON object.
var errNotObject = &Error{Code: EPROCESSING, Message: "the request body must be a JSON object"}

// DecodeJSONObject decodes a request body that must be one JSON object into v, a struct,
// as every body is decoded (decodeRequest). A property of the wrong type is a 422 naming
// it; anything that is not a JSON object is EPROCESSING.
func DecodeJSONObject(body []byte, v any) error {
	if err := DecodeEnvelope(body, v); err != nil {
		return err
	}
	return RefuseNUL(body)
}

// DecodeEnvelope is DecodeJSONObject without the text rule, for a body whose one property
// is kept raw for a parser that applies RefuseNUL itself (POST /api/v2/messages' "message"):
// the errors then name the fields as that parser does ("content", not "message.content").
func DecodeEnvelope(body []byte, v any) error {
	if t := reflect.TypeOf(v); t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("decode a JSON object into %T: the target must point to a struct", v)
	}
	wrong, ok := decodeRequest(body, v)
	if !ok {
		return errNotObject
	}
	return wrongTypeErr(wrong)
}

// RefuseNUL is the rule that no text the service keeps holds the NUL character (U+0000,
// written \u0000 in JSON): PostgreSQL cannot store it in a text column, so without the
// rule a body that SQLite takes is a 500 on PostgreSQL, and a NUL is never a meaningful
// part of a name, a message or a URL anyway. It returns a 422 naming every property of
// body (a JSON object) whose key or string value holds one, at any depth, as
// "a.b[0].c" (TextErrors, as MCP arguments are named); nil when there is none or body is
// not JSON (that is reported elsewhere).
// Every body parser applies it, so the rule holds for the REST API and the MCP tools alike.
func RefuseNUL(body []byte) error {
	if !bytes.Contains(body, []byte(`\u0000`)) {
		return nil // the only way JSON can carry a NUL; usually absent
	}
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return nil
	}
	var v ValidationErrors
	for _, f := range TextErrors(doc, "") {
		v.Add(f.Field, f.Message)
	}
	return v.Err()
}

// wrongTypeErr is the error of the properties given a value of the wrong type, nil when
// there are none.
func wrongTypeErr(wrong []FieldError) error {
	var v ValidationErrors
	for _, f := range wrong {
		v.Add(f.Field, "has the wrong type ("+f.Message+"): see the example in the API reference")
	}
	return v.Err()
}

// wrongTypes lists the properties of a decoded request (in points to) that were given a
// value of the wrong type, as decodeRequest does.
func wrongTypes(in any) []FieldError {
	var out []FieldError
	v := reflect.ValueOf(in).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if w := optWrong(v.FieldByIndex(f.Index)); !f.Anonymous && w != "" {
			out = append(out, FieldError{Field: name, Message: w})
		}
	}
	return out
}

// refusedNamed lists the properties of a decoded request (in points to) that are tagged
// refused:"true" and that the body names, even as null: properties a request may not
// give. The API reference reads the same tag (schema.Refused), so the two cannot disagree.
func refusedNamed(in any) []string {
	var out []string
	v := reflect.ValueOf(in).Elem()
	for _, f := range reflect.VisibleFields(v.Type()) {
		if f.Tag.Get("refused") != "true" {
			continue
		}
		if v.FieldByIndex(f.Index).FieldByName("Named").Bool() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// text returns the string of o, or false when it is not usable: not given, given as
// another type, or longer than max characters (the last two recorded on name).
func (v *ValidationErrors) text(name string, o Opt[string], max int) (string, bool) {
	switch {
	case o.Wrong != "":
		v.Add(name, "must be a string")
	case !o.Set:
	case utf8.RuneCountInString(o.Value) > max:
		v.Add(name, fmt.Sprintf("must be at most %d characters", max))
	default:
		return o.Value, true
	}
	return "", false
}

// boolean returns the value of o, false when not given; a value of another type is
// recorded on name.
func (v *ValidationErrors) boolean(name string, o Opt[bool]) bool {
	if o.Wrong != "" {
		v.Add(name, "must be a boolean")
	}
	return o.Value
}

// integer returns the value of o when it is an integer from min to max; otherwise, when
// given, it records msg on name.
func (v *ValidationErrors) integer(name string, o Opt[json.Number], min, max int64, msg string) (int64, bool) {
	if !o.Set && o.Wrong == "" {
		return 0, false
	}
	i, err := wholeNumber(o.Value)
	if o.Wrong != "" || err != nil || i < min || i > max {
		v.Add(name, msg)
		return 0, false
	}
	return i, true
}

// wholeNumber is n as an int64 when it is a whole number, written as JSON allows it: 2,
// 2.0 and 2e0 alike (JSON Schema's integer, and what an MCP client's float arguments
// arrive as, so REST and MCP give one verdict).
func wholeNumber(n json.Number) (int64, error) {
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, _, err := big.ParseFloat(string(n), 10, 128, big.ToNearestEven)
	if err != nil {
		return 0, err
	}
	if !f.IsInt() {
		return 0, fmt.Errorf("%s is not a whole number", n)
	}
	i, acc := f.Int64()
	if acc != big.Exact {
		return 0, fmt.Errorf("%s is out of range", n)
	}
	return i, nil
}

// fieldNames are the json names of the fields of struct type t, in order.
func fieldNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}

// given is s as a property given in a body; nil is a property left out.
func given(s *string) Opt[string] {
	if s == nil {
		return Opt[string]{}
	}
	return Opt[string]{Value: *s, Set: true, Named: true}
}

// overlay sets each Opt field of the struct dst points to (those of embedded structs
// included) that the same struct src points to names: an update applied to what it changes.
func overlay[T any](dst, src *T) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for _, f := range reflect.VisibleFields(s.Type()) {
		fv := s.FieldByIndex(f.Index)
		if fv.Kind() != reflect.Struct || f.Anonymous {
			continue // only Opt fields are an update's; an embedded struct's fields come in their own right
		}
		if named := fv.FieldByName("Named"); named.IsValid() && named.Kind() == reflect.Bool && named.Bool() {
			d.FieldByIndex(f.Index).Set(s.FieldByIndex(f.Index))
		}
	}
}

// Params reads the parameters of a list request by name as its API carries them: the
// customer API's query string (rest/) or a tool's arguments (mcp/). A value that is not of
// the type asked for is recorded by the reader, as a field error under its name in that
// API's words, and read as absent; the domain's rules (a filter's Validate) come after.
// ReadMessageFilter and ReadRecordingFilter read a list's parameters with it, so each list
// names its parameters once for both APIs.
type Params interface {
	// Text is a string parameter, "" when absent.
	Text(name string) string
	// ID is an id parameter as text, "" when absent: a string, or where the API has
	// numbers an integer.
	ID(name string) string
	// Int is an integer parameter, nil when absent.
	Int(name string) *int
	// Bool is a boolean parameter, nil when absent.
	Bool(name string) *bool
}
