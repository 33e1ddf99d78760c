package answerdesk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Merge variables (the External API dispatching and Merge variables docs pages) are written {{name}} in the values of an
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
	Field string `json:"field" jsonschema:"Field name in the body (at most 200 bytes)."`
	Value string `json:"value" jsonschema:"Value, with merge variables resolved per message (at most 10000 bytes). Resolved values are always strings."`
	// noValue: decoded from JSON without a value, or with null (the documented body
	// requires a string, "" for an empty one), for the create rule to refuse.
	noValue bool
}

// UnmarshalJSON decodes a field and records whether it had a value.
func (f *PayloadField) UnmarshalJSON(b []byte) error {
	var in struct {
		Field string  `json:"field"`
		Value *string `json:"value"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*f = PayloadField{Field: in.Field, noValue: in.Value == nil}
	if in.Value != nil {
		f.Value = *in.Value
	}
	return nil
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

// messageMergeFields is the set of the fields {{message.<field>}} may name: MessageFields,
// so that it can never drift from the API form.
var messageMergeFields = sync.OnceValue(func() map[string]bool {
	fields := map[string]bool{}
	for _, name := range MessageFields() {
		fields[name] = true
	}
	return fields
})

// Render replaces every {{variable}} in tmpl. Unknown variables become "" and are reported
// in warnings ("unknown merge variable {{x}}"), as is a question the message has no answer
// to. Warnings are deduplicated. It never fails: any text is a valid template (an unclosed
// "{{" is literal text). d may be nil or have a nil Message: message fields are then empty.
//
// The result is at most MaxPayloadBytes long: expansion stops there, the text is cut at a
// UTF-8 boundary and a warning says so, so that a short template repeating a long variable
// cannot blow up into an unbounded string. Variables after the cut are not looked at.
func Render(tmpl string, d *MergeData) (out string, warnings []string) {
	if !strings.Contains(tmpl, "{{") && len(tmpl) <= MaxPayloadBytes {
		return tmpl, nil
	}
	r := newMergeResolver(d)
	out, cut := r.renderBounded(tmpl, MaxPayloadBytes)
	if cut {
		out = trimIncompleteRune(out)
		r.warn(fmt.Sprintf("the rendered text reached the limit of %d bytes and was cut", MaxPayloadBytes))
	}
	return out, r.list()
}

// UnknownMergeVariables returns the variables in tmpl that can never resolve: those Render
// gives as an empty string with an "unknown merge variable" warning (a method may be
// configured with them; the tests check with it that the API reference names only real
// variables). Each is returned as "{{name}}" with the name trimmed, once,
// in order of appearance; nil when every variable is known. A question name is always valid.
func UnknownMergeVariables(tmpl string) []string {
	var unknown []string
	scanMergeTemplate(tmpl, func(string) bool { return true }, func(name string) bool {
		if kind, _ := classifyMergeVariable(name); kind == mergeUnknown {
			if v := "{{" + name + "}}"; !slices.Contains(unknown, v) {
				unknown = append(unknown, v)
			}
		}
		return true
	})
	return unknown
}

// Limits of an external API method's payload and of what one message sends (the External
// API dispatching docs page lists them).
const (
	// MaxPayloadBytes bounds a rendered body, JSON or FORM: 256 KiB.
	MaxPayloadBytes = 256 << 10
	// MaxPayloadFields is the most data fields a method may have.
	MaxPayloadFields = 50
	// MaxMessagePayloadBytes bounds the bodies of all the deliveries of one message
	// together, at every escalation level: 8 MiB. Each delivery gets a share (PayloadShare).
	MaxMessagePayloadBytes = 8 << 20
	// MaxDeliveryWarnings is the most warnings a rendering lists; one more counts the rest.
	MaxDeliveryWarnings = 10
	// maxWarningLength bounds one warning: one naming a variable quotes its name.
	maxWarningLength = 300
	// minPayloadShare is the least budget a body is given: the braces of an empty JSON object.
	minPayloadShare = 2
)

// PayloadShare is the body budget of each of n deliveries of a message about to be queued,
// when the message's earlier deliveries were given used bytes: an equal share of what is
// left of MaxMessagePayloadBytes, and at most MaxPayloadBytes. n counts the methods of
// every level still to come, not only the level being queued, so that a level reached
// later finds its share left; the shares of one message then add up to at most
// MaxMessagePayloadBytes, unless contacts are added between its escalations (each later
// delivery then gets what is left divided among them, never less than an empty "{}").
func PayloadShare(used int64, n int) int {
	left := int64(MaxMessagePayloadBytes) - used
	if n <= 0 || left <= 0 {
		return minPayloadShare
	}
	return int(max(minPayloadShare, min(int64(MaxPayloadBytes), left/int64(n))))
}

// MethodWarnings returns what every rendering of a method with these fields will warn of,
// known without a message: the variables that never resolve (UnknownMergeVariables), in the
// words the rendering uses. A delivery starts with them.
func MethodWarnings(fields []PayloadField) []string {
	r := newMergeResolver(nil)
	for _, f := range fields {
		for _, v := range UnknownMergeVariables(f.Value) {
			r.warn("unknown merge variable " + v)
		}
	}
	return r.list()
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
// The body is never longer than MaxPayloadBytes. Rendering works within that budget instead
// of rendering everything and truncating: every field's name is placed first (with an empty
// value), then values are expanded in field order into what room is left, and expansion
// stops as soon as the room is spent. A value that does not fit is cut at a UTF-8 boundary
// (never inside an escape), later values get what is left (often nothing), and one warning
// names how many values were cut. Fields whose names alone do not fit are left out, with a
// warning. So a template that repeats {{message.content}} costs at most the budget, whatever
// the message's size.
//
// Warnings from every field are collected, deduplicated. err is only for an unknown payload
// type (an EINVALID error on payload_type).
func RenderPayload(payloadType string, fields []PayloadField, d *MergeData) (body []byte, contentType string, warnings []string, err error) {
	return RenderPayloadWithin(payloadType, fields, d, MaxPayloadBytes)
}

// RenderPayloadWithin is RenderPayload with a smaller body budget: a delivery's share of
// its message's (PayloadShare). The budget is at least 2 bytes ("{}") and at most
// MaxPayloadBytes.
func RenderPayloadWithin(payloadType string, fields []PayloadField, d *MergeData, budget int) (body []byte, contentType string, warnings []string, err error) {
	return renderPayload(payloadType, fields, d, min(max(budget, minPayloadShare), MaxPayloadBytes))
}

// renderPayload is RenderPayload with the body budget given, at least 2 bytes ("{}").
func renderPayload(payloadType string, fields []PayloadField, d *MergeData, budget int) (body []byte, contentType string, warnings []string, err error) {
	var form bool
	switch {
	case strings.EqualFold(payloadType, PayloadJSON):
		contentType = ContentTypeJSON
	case strings.EqualFold(payloadType, PayloadForm):
		form, contentType = true, ContentTypeForm
	default:
		return nil, "", nil, FieldErr("payload_type", fmt.Sprintf("must be %s or %s", PayloadJSON, PayloadForm))
	}

	// Which template each name ends up with: first position, last value. Only those are
	// rendered, so an overridden value costs nothing.
	names := make([]string, 0, len(fields))
	tmpls := make(map[string]string, len(fields))
	for _, f := range fields {
		name := strings.ToValidUTF8(f.Field, "\uFFFD")
		if _, dup := tmpls[name]; !dup {
			names = append(names, name)
		}
		tmpls[name] = f.Value
	}

	// The skeleton is the body with every value empty: {"a":"","b":""} or a=&b=. It is laid
	// out first so that every field keeps its key however long the values before it are.
	encName := make([][]byte, 0, len(names))
	skeleton := 2 // the braces of the JSON object
	if form {
		skeleton = 0
	}
	r := newMergeResolver(d)
	for i, name := range names {
		var enc []byte
		cost := 0
		if i > 0 {
			cost = 1 // the "," or "&" before it
		}
		if form {
			enc, _ = appendFormEscaped(nil, name, -1)
			cost += len(enc) + 1 // "="
		} else {
			enc, _ = appendJSONString(nil, name, -1)
			cost += len(enc) + 3 // ':' and the value's quotes
		}
		if skeleton+cost > budget {
			r.warn(fmt.Sprintf("the body limit of %d bytes left no room for the field names: %d fields were left out, from %q on",
				budget, len(names)-i, name))
			names = names[:i]
			break
		}
		skeleton += cost
		encName = append(encName, enc)
	}

	room := budget - skeleton // what the values may use, together
	buf := make([]byte, 0, min(budget, skeleton+estimateValues(names, tmpls, r)))
	var cut []string
	if !form {
		buf = append(buf, '{')
	}
	for i, name := range names {
		if i > 0 {
			if form {
				buf = append(buf, '&')
			} else {
				buf = append(buf, ',')
			}
		}
		buf = append(buf, encName[i]...)
		if form {
			buf = append(buf, '=')
		} else {
			buf = append(buf, ':', '"')
		}
		// The raw value needs at most room bytes (escaping only lengthens valid text), plus
		// a rune's worth to tell a value that fits exactly from one that goes on.
		raw, rawCut := r.renderBounded(tmpls[name], room+utf8.UTFMax)
		if rawCut {
			raw = trimIncompleteRune(raw)
		}
		value := strings.ToValidUTF8(raw, "\uFFFD")
		before := len(buf)
		var encCut bool
		if form {
			buf, encCut = appendFormEscaped(buf, value, room)
		} else {
			buf, encCut = appendJSONEscaped(buf, value, room)
			buf = append(buf, '"')
		}
		used := len(buf) - before
		if !form {
			used-- // the closing quote is the skeleton's
		}
		room -= used
		if rawCut || encCut {
			cut = append(cut, name)
		}
	}
	if !form {
		buf = append(buf, '}')
	}
	if len(cut) > 0 {
		r.warn(fmt.Sprintf("the body reached its limit of %d bytes: %d of %d values were cut to fit, from the value of %q on",
			budget, len(cut), len(names), cut[0]))
	}
	return buf, contentType, r.list(), nil
}

// estimateValues guesses how long the values will be, to size the body buffer once: the
// templates' length plus the message's content once. It is only a hint: the buffer grows
// as needed, and the caller never sizes it past the budget.
func estimateValues(names []string, tmpls map[string]string, r *mergeResolver) int {
	n := 0
	for _, name := range names {
		n += len(tmpls[name])
	}
	if r.d.Message != nil {
		n += len(r.d.Message.Content)
	}
	return n
}

// trimIncompleteRune drops a rune cut short at the end of s, so that the cut does not
// turn into a U+FFFD.
func trimIncompleteRune(s string) string {
	for i := 1; i < utf8.UTFMax && i <= len(s); i++ {
		if utf8.RuneStart(s[len(s)-i]) {
			if !utf8.FullRuneInString(s[len(s)-i:]) {
				return s[:len(s)-i]
			}
			break
		}
	}
	return s
}

// appendJSONString appends s as a JSON string, quotes included, escaped as encoding/json
// does without HTML escaping. s must be valid UTF-8. limit < 0 means no limit.
func appendJSONString(dst []byte, s string, limit int) ([]byte, bool) {
	dst = append(dst, '"')
	dst, cut := appendJSONEscaped(dst, s, limit)
	return append(dst, '"'), cut
}

const hexDigits = "0123456789abcdef"

// appendJSONEscaped appends the escaped contents of s, without quotes, writing at most
// limit bytes (limit < 0: no limit). It stops before the first rune whose escape would go
// over the limit, so the output is never cut inside a rune or an escape, and reports
// whether it stopped early. The escapes are encoding/json's with SetEscapeHTML(false):
// \" \\ \b \f \n \r \t, \u00XX for other control bytes, \u2028 and \u2029.
func appendJSONEscaped(dst []byte, s string, limit int) ([]byte, bool) {
	end := len(dst) + limit
	for i := 0; i < len(s); {
		var esc [6]byte
		var e []byte
		size := 1
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			size = n
			switch r {
			case '\u2028', '\u2029':
				esc = [6]byte{'\\', 'u', '2', '0', '2', hexDigits[r&0xF]}
				e = esc[:]
			default:
				e = []byte(s[i : i+n])
			}
		case c == '"' || c == '\\':
			esc[0], esc[1] = '\\', c
			e = esc[:2]
		case c == '\b':
			e = append(esc[:0], '\\', 'b')
		case c == '\f':
			e = append(esc[:0], '\\', 'f')
		case c == '\n':
			e = append(esc[:0], '\\', 'n')
		case c == '\r':
			e = append(esc[:0], '\\', 'r')
		case c == '\t':
			e = append(esc[:0], '\\', 't')
		case c < 0x20:
			esc = [6]byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF]}
			e = esc[:]
		default:
			// A run of plain ASCII is copied at once.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < utf8.RuneSelf && s[j] != '"' && s[j] != '\\' {
				j++
			}
			if limit >= 0 && len(dst)+(j-i) > end {
				return append(dst, s[i:end-len(dst)+i]...), true
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		if limit >= 0 && len(dst)+len(e) > end {
			return dst, true
		}
		dst = append(dst, e...)
		i += size
	}
	return dst, false
}

// appendFormEscaped appends s escaped as url.QueryEscape does (a space becomes "+"), writing
// at most limit bytes (limit < 0: no limit) and never cutting a rune's escape in two. It
// reports whether it stopped early.
func appendFormEscaped(dst []byte, s string, limit int) ([]byte, bool) {
	end := len(dst) + limit
	for i := 0; i < len(s); {
		size := 1
		if s[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(s[i:])
		}
		need := 0
		for _, c := range []byte(s[i : i+size]) {
			if formUnreserved(c) || c == ' ' {
				need++
			} else {
				need += 3
			}
		}
		if limit >= 0 && len(dst)+need > end {
			return dst, true
		}
		for _, c := range []byte(s[i : i+size]) {
			switch {
			case formUnreserved(c):
				dst = append(dst, c)
			case c == ' ':
				dst = append(dst, '+')
			default:
				dst = append(dst, '%', upperHex[c>>4], upperHex[c&0xF])
			}
		}
		i += size
	}
	return dst, false
}

const upperHex = "0123456789ABCDEF"

// formUnreserved reports whether url.QueryEscape leaves c as it is.
func formUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

// scanMergeTemplate splits tmpl into literal text and variables, calling literal and
// variable in order until one of them returns false. A variable is "{{", text without
// braces, "}}"; its name is that text trimmed of white space. Everything else is literal.
// The scan is linear in len(tmpl).
func scanMergeTemplate(tmpl string, literal, variable func(string) bool) {
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
				if !literal(s[:j+2]) {
					return
				}
				s = s[j+2:]
				continue
			}
			start = b - 1
		}
		if start > 0 && !literal(s[:start]) {
			return
		}
		if !variable(strings.TrimSpace(s[start+2 : j])) {
			return
		}
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
	values   map[string]string // resolved variables by name: each is resolved once
	loaded   bool
	msg      map[string]any // the message's API form; nil without a message
	answers  map[string]any
	folded   []string // sorted answer keys, for the case-insensitive fallback
	warnings []string
	unlisted int // warnings past MaxDeliveryWarnings, counted only
}

func newMergeResolver(d *MergeData) *mergeResolver {
	if d == nil {
		d = &MergeData{}
	}
	return &mergeResolver{d: d}
}

// renderBounded expands tmpl but writes at most max bytes: once they are written the
// expansion stops (nothing after is resolved) and cut is true. The text may end inside a
// rune; the caller trims it.
func (r *mergeResolver) renderBounded(tmpl string, max int) (out string, cut bool) {
	if !strings.Contains(tmpl, "{{") {
		if len(tmpl) > max {
			return tmpl[:max], true
		}
		return tmpl, false
	}
	// A first pass measures the expansion (up to max), so the text is allocated once at its
	// size: growing by doubling would copy up to twice the budget.
	size := 0
	measure := func(s string) bool {
		size += len(s)
		return size < max
	}
	scanMergeTemplate(tmpl, measure, func(name string) bool { return measure(r.resolveOnce(name)) })
	var b strings.Builder
	b.Grow(min(size, max))
	write := func(s string) bool {
		if left := max - b.Len(); len(s) > left {
			b.WriteString(s[:left])
			cut = true
			return false
		}
		b.WriteString(s)
		return true
	}
	scanMergeTemplate(tmpl, write, func(name string) bool { return write(r.resolveOnce(name)) })
	return b.String(), cut
}

// resolveOnce resolves a variable the first time it is named and remembers the value: a
// template may name the same variable hundreds of times, and an object value (the answers)
// is built as JSON only once.
func (r *mergeResolver) resolveOnce(name string) string {
	if v, ok := r.values[name]; ok {
		return v
	}
	if r.values == nil {
		r.values = map[string]string{}
	}
	v := r.resolve(name)
	r.values[name] = v
	return v
}

// warn records w once. A delivery keeps its warnings, and a template can name thousands
// of variables that never resolve, each as long as the value: past MaxDeliveryWarnings
// warnings are only counted, and each is cut to maxWarningLength bytes.
func (r *mergeResolver) warn(w string) {
	if len(w) > maxWarningLength {
		w = trimIncompleteRune(w[:maxWarningLength-len("…")]) + "…"
	}
	switch {
	case slices.Contains(r.warnings, w):
	case len(r.warnings) < MaxDeliveryWarnings:
		r.warnings = append(r.warnings, w)
	default:
		r.unlisted++
	}
}

// list returns the warnings, with a last one counting those not listed.
func (r *mergeResolver) list() []string {
	if r.unlisted == 0 {
		return r.warnings
	}
	return append(r.warnings, fmt.Sprintf("and %d more warnings", r.unlisted))
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
