package answerdesk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Merge variables (CONTRACT.md §2, SERVICE.md §6) are written {{name}} in the values of an
// external API method's data and resolve against the message being delivered:
//
//	{{message.<field>}}             any field of the message's API (snake_case) form
//	{{message.answers.<question>}}  the answer to the named script question
//	{{account.number}}  {{account.name}}  {{contact.name}}
//
// Whitespace inside the braces is ignored ({{ message.content }}). Names are case-sensitive;
// only a question name falls back to a case-insensitive match when no answer has that exact
// name. A variable's name may not contain braces: in "{{{{x}}}}" only the innermost "{{x}}" is
// a variable and the other braces are literal text. Expansion is a single pass, so "{{...}}"
// text inside a resolved value is never expanded again.

// MergeData is what merge variables resolve against.
type MergeData struct {
	Message       *Message
	AccountNumber string
	AccountName   string
	ContactName   string
}

// PayloadField is one configured value set of an external API method: the field name the
// receiver expects and its value, which may hold merge variables.
type PayloadField struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// Payload types of an external API method.
const (
	PayloadJSON = "JSON"
	PayloadForm = "FORM"
)

// Content types of the rendered payloads.
const (
	ContentTypeJSON = "application/json"
	ContentTypeForm = "application/x-www-form-urlencoded"
)

const answersPrefix = "message.answers."

// messageMergeFields is the set of JSON names of Message, the fields {{message.<field>}} may
// name. It is derived from the struct tags so that it can never drift from the API form.
var messageMergeFields = sync.OnceValue(func() map[string]bool {
	fields := map[string]bool{}
	t := reflect.TypeFor[Message]()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		fields[name] = true
	}
	return fields
})

// Render replaces every {{variable}} in tmpl. Unknown variables become "" and are reported
// in warnings ("unknown merge variable {{x}}"), as is a question the message has no answer
// to. Warnings are deduplicated. It never fails: any text is a valid template (an unclosed
// "{{" is literal text). d may be nil or have a nil Message: message fields are then empty.
func Render(tmpl string, d *MergeData) (out string, warnings []string) {
	if !strings.Contains(tmpl, "{{") {
		return tmpl, nil
	}
	r := newMergeResolver(d)
	return r.render(tmpl), r.warnings
}

// UnknownMergeVariables returns the variables in tmpl that can never resolve, to be checked
// when a method is configured. Each is returned as "{{name}}" with the name trimmed, once,
// in order of appearance; nil when every variable is known. A question name is always valid.
func UnknownMergeVariables(tmpl string) []string {
	var unknown []string
	scanMergeTemplate(tmpl, func(string) {}, func(name string) {
		if kind, _ := classifyMergeVariable(name); kind == mergeUnknown {
			if v := "{{" + name + "}}"; !slices.Contains(unknown, v) {
				unknown = append(unknown, v)
			}
		}
	})
	return unknown
}

// RenderPayload builds the request body of an external API method from its configured fields.
//
// JSON gives a flat JSON object of field name to resolved string value, compact, without HTML
// escaping, content type "application/json". FORM gives application/x-www-form-urlencoded
// name=value pairs. In both, fields keep their configured order; a field name configured more
// than once appears once, at its first position, with its last value (so both payload types
// carry the same data and no JSON key is duplicated). Names and values are made valid UTF-8
// (each run of invalid bytes becomes U+FFFD) before that comparison. The payload type is
// matched case-insensitively.
//
// Warnings from every field are collected, deduplicated. err is only for an unknown payload
// type (an EINVALID error on payload_type).
func RenderPayload(payloadType string, fields []PayloadField, d *MergeData) (body []byte, contentType string, warnings []string, err error) {
	var form bool
	switch {
	case strings.EqualFold(payloadType, PayloadJSON):
	case strings.EqualFold(payloadType, PayloadForm):
		form = true
	default:
		var v ValidationErrors
		v.Add("payload_type", fmt.Sprintf("must be %s or %s", PayloadJSON, PayloadForm))
		return nil, "", nil, v.Err()
	}

	r := newMergeResolver(d)
	names := make([]string, 0, len(fields))
	values := make(map[string]string, len(fields))
	for _, f := range fields {
		name := strings.ToValidUTF8(f.Field, "\uFFFD")
		value := strings.ToValidUTF8(r.render(f.Value), "\uFFFD")
		if _, dup := values[name]; !dup {
			names = append(names, name)
		}
		values[name] = value
	}

	var buf bytes.Buffer
	if form {
		for i, name := range names {
			if i > 0 {
				buf.WriteByte('&')
			}
			buf.WriteString(url.QueryEscape(name))
			buf.WriteByte('=')
			buf.WriteString(url.QueryEscape(values[name]))
		}
		return buf.Bytes(), ContentTypeForm, r.warnings, nil
	}
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	str := func(s string) {
		_ = enc.Encode(s) // a string always encodes
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			buf.WriteByte(',')
		}
		str(name)
		buf.WriteByte(':')
		str(values[name])
	}
	buf.WriteByte('}')
	return buf.Bytes(), ContentTypeJSON, r.warnings, nil
}

// scanMergeTemplate splits tmpl into literal text and variables, calling literal and
// variable in order. A variable is "{{", text without braces, "}}"; its name is that text
// trimmed of white space. Everything else is literal. The scan is linear in len(tmpl).
func scanMergeTemplate(tmpl string, literal, variable func(string)) {
	s := tmpl
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			break // unclosed: the rest is literal
		}
		j += i + 2
		start := i
		if k := strings.LastIndexAny(s[i+2:j], "{}"); k >= 0 {
			// The name would hold a brace. The only "{{" that can open a variable closing
			// at j is one ending at that last brace; otherwise nothing before j+2 can.
			b := i + 2 + k
			if s[b] != '{' || s[b-1] != '{' {
				literal(s[:j+2])
				s = s[j+2:]
				continue
			}
			start = b - 1
		}
		if start > 0 {
			literal(s[:start])
		}
		variable(strings.TrimSpace(s[start+2 : j]))
		s = s[j+2:]
	}
	if s != "" {
		literal(s)
	}
}

type mergeKind int

const (
	mergeUnknown mergeKind = iota
	mergeAccountNumber
	mergeAccountName
	mergeContactName
	mergeMessageField
	mergeAnswer
)

// classifyMergeVariable says what a trimmed variable name refers to, with the message field
// or question name it names.
func classifyMergeVariable(name string) (mergeKind, string) {
	switch name {
	case "account.number":
		return mergeAccountNumber, ""
	case "account.name":
		return mergeAccountName, ""
	case "contact.name":
		return mergeContactName, ""
	}
	if q, ok := strings.CutPrefix(name, answersPrefix); ok {
		if q = strings.TrimSpace(q); q != "" {
			return mergeAnswer, q
		}
		return mergeUnknown, ""
	}
	if f, ok := strings.CutPrefix(name, "message."); ok && messageMergeFields()[f] {
		return mergeMessageField, f
	}
	return mergeUnknown, ""
}

// mergeResolver resolves the variables of one Render or RenderPayload call. The message's
// API form is built once, on first use, and shared by every variable.
type mergeResolver struct {
	d        *MergeData
	loaded   bool
	msg      map[string]any // the message's API form; nil without a message
	answers  map[string]any
	folded   []string // sorted answer keys, for the case-insensitive fallback
	warnings []string
}

func newMergeResolver(d *MergeData) *mergeResolver {
	if d == nil {
		d = &MergeData{}
	}
	return &mergeResolver{d: d}
}

func (r *mergeResolver) render(tmpl string) string {
	if !strings.Contains(tmpl, "{{") {
		return tmpl
	}
	var b strings.Builder
	b.Grow(len(tmpl))
	scanMergeTemplate(tmpl, func(s string) { b.WriteString(s) }, func(name string) { b.WriteString(r.resolve(name)) })
	return b.String()
}

func (r *mergeResolver) warn(w string) {
	if !slices.Contains(r.warnings, w) {
		r.warnings = append(r.warnings, w)
	}
}

func (r *mergeResolver) resolve(name string) string {
	kind, arg := classifyMergeVariable(name)
	switch kind {
	case mergeAccountNumber:
		return r.d.AccountNumber
	case mergeAccountName:
		return r.d.AccountName
	case mergeContactName:
		return r.d.ContactName
	case mergeMessageField:
		r.load()
		return mergeValueString(r.msg[arg]) // a known field that is null or absent is ""
	case mergeAnswer:
		r.load()
		if v, ok := r.answer(arg); ok {
			return mergeValueString(v)
		}
		r.warn(fmt.Sprintf("no answer to %q on this message", arg))
		return ""
	}
	r.warn("unknown merge variable {{" + name + "}}")
	return ""
}

// load builds the message's API form: the Message marshalled to JSON and decoded with
// UseNumber, so every value reads exactly as the API shows it.
func (r *mergeResolver) load() {
	if r.loaded {
		return
	}
	r.loaded = true
	if r.d.Message == nil {
		return
	}
	m := *r.d.Message
	if !json.Valid(m.Answers) {
		m.Answers = nil // absent or corrupt answers must not make the whole message unreadable
	}
	b, err := json.Marshal(&m)
	if err != nil {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&r.msg) != nil {
		r.msg = nil
		return
	}
	r.answers, _ = r.msg["answers"].(map[string]any)
}

// answer finds the answer to question q: the exact key, else the first key in sorted order
// that matches it case-insensitively.
func (r *mergeResolver) answer(q string) (any, bool) {
	if v, ok := r.answers[q]; ok {
		return v, true
	}
	if r.folded == nil {
		r.folded = make([]string, 0, len(r.answers))
		for k := range r.answers {
			r.folded = append(r.folded, k)
		}
		slices.Sort(r.folded)
	}
	for _, k := range r.folded {
		if strings.EqualFold(k, q) {
			return r.answers[k], true
		}
	}
	return nil, false
}

// mergeValueString renders a value of the message's API form: strings as they are, numbers
// in their shortest form (integers without a fraction), booleans as true or false, null as
// "", and objects and arrays as compact JSON.
func mergeValueString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return mergeNumberString(string(v))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// mergeNumberString writes a JSON number literal: integer literals as written (exact at any
// size), others through float64 so that 5.0 reads "5" and 1e3 reads "1000".
func mergeNumberString(n string) string {
	if !strings.ContainsAny(n, ".eE") {
		return n
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	if f == 0 {
		return "0"
	}
	if abs := math.Abs(f); abs >= 1e21 || abs < 1e-6 {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
