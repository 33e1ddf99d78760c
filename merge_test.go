package answerdesk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/answerdesk/answerdesk"
)

func mergePtr[T any](v T) *T { return &v }

// mergeFixture is a message with every kind of value: integers, null integers, strings, null
// strings, booleans, timestamps, a null timestamp and answers of every JSON type.
func mergeFixture() *answerdesk.MergeData {
	return &answerdesk.MergeData{
		Message: &answerdesk.Message{
			ID:              42,
			UUID:            "0b6a4f1e-2f9a-4c1e-9b7d-1f2e3d4c5b6a",
			AccountID:       7,
			ContactID:       mergePtr(int64(9)),
			ActivitiesCount: 3,
			CallerID:        mergePtr("+15550100"),
			FirstName:       mergePtr("Zoë"),
			Content:         "Leak in the basement. Literal {{message.content}} and {{account.name}} stay.",
			Status:          answerdesk.StatusNew,
			Origin:          answerdesk.OriginCall,
			IsEmergency:     true,
			CreatedAt:       answerdesk.NewTime(time.Date(2026, 3, 4, 5, 6, 7, 890e6, time.UTC)),
			UpdatedAt:       answerdesk.NewTime(time.Date(2026, 3, 4, 5, 6, 8, 0, time.FixedZone("X", 3600))),
			Answers: json.RawMessage(`{"Callback number":"555-0100","Count":3,"Ratio":2.50,"Whole":5.0,` +
				`"Thousand":1e3,"Big":12345678901234567890,"Nested":{"b":[1,2.0],"a":"<x> & y"},"Empty":null,` +
				`"Flag":false,"dots.in.name":"dotted","MiXeD Case":"mixed","Téléphone":"☎ 06"}`),
		},
		AccountNumber: "ACC-1001",
		AccountName:   "Acme & Sons",
		ContactName:   "Dana O'Neil",
	}
}

func TestRender(t *testing.T) {
	fx := mergeFixture()
	tests := []struct {
		name     string
		tmpl     string
		data     *answerdesk.MergeData
		want     string
		warnings []string
	}{
		{"empty", "", fx, "", nil},
		{"no variables", "plain text", fx, "plain text", nil},
		{"account number", "{{account.number}}", fx, "ACC-1001", nil},
		{"account name", "{{account.name}}", fx, "Acme & Sons", nil},
		{"contact name", "{{contact.name}}", fx, "Dana O'Neil", nil},
		{"content single pass", "[{{message.content}}]", fx, "[" + fx.Message.Content + "]", nil},
		{"integer field", "{{message.id}}/{{message.account_id}}/{{message.activities_count}}", fx, "42/7/3", nil},
		{"null integer is empty, no warning", "<{{message.agent_id}}>", fx, "<>", nil},
		{"set optional integer", "{{message.contact_id}}", fx, "9", nil},
		{"string field", "{{message.caller_id}} {{message.status}} {{message.origin}}", fx, "+15550100 new CALL", nil},
		{"null string is empty, no warning", "<{{message.email}}>", fx, "<>", nil},
		{"booleans", "{{message.is_emergency}} {{message.read}}", fx, "true false", nil},
		{"timestamps", "{{message.created_at}} {{message.updated_at}}", fx, "2026-03-04T05:06:07.890Z 2026-03-04T04:06:08.000Z", nil},
		{"null timestamp", "<{{message.delivered_at}}>", fx, "<>", nil},
		{"uuid", "{{message.uuid}}", fx, "0b6a4f1e-2f9a-4c1e-9b7d-1f2e3d4c5b6a", nil},
		{"answers object", "{{message.answers}}", &answerdesk.MergeData{Message: &answerdesk.Message{Answers: json.RawMessage(`{"b":1,"a":"<x>"}`)}}, `{"a":"<x>","b":1}`, nil},
		{"answer string with space", "{{message.answers.Callback number}}", fx, "555-0100", nil},
		{"answer integer", "{{message.answers.Count}}", fx, "3", nil},
		{"answer decimal", "{{message.answers.Ratio}}", fx, "2.5", nil},
		{"answer integral float", "{{message.answers.Whole}}", fx, "5", nil},
		{"answer exponent", "{{message.answers.Thousand}}", fx, "1000", nil},
		{"answer big integer exact", "{{message.answers.Big}}", fx, "12345678901234567890", nil},
		{"answer object compact", "{{message.answers.Nested}}", fx, `{"a":"<x> & y","b":[1,2.0]}`, nil},
		{"answer null, no warning", "<{{message.answers.Empty}}>", fx, "<>", nil},
		{"answer false", "{{message.answers.Flag}}", fx, "false", nil},
		{"answer with dots", "{{message.answers.dots.in.name}}", fx, "dotted", nil},
		{"answer case-insensitive fallback", "{{message.answers.mixed case}}", fx, "mixed", nil},
		{"answer unicode", "{{ message.answers.Téléphone }}", fx, "☎ 06", nil},
		{"missing answer", "<{{message.answers.Reason}}>", fx, "<>", []string{`no answer to "Reason" on this message`}},
		{"missing answer once", "{{message.answers.Reason}}{{ message.answers.Reason }}", fx, "", []string{`no answer to "Reason" on this message`}},
		{"whitespace", "{{ account.number }}|{{\taccount.number\n}}|{{account.number   }}", fx, "ACC-1001|ACC-1001|ACC-1001", nil},
		{"answer name trimmed", "{{ message.answers.  Callback number  }}", fx, "555-0100", nil},
		{"unknown", "a{{nope}}b", fx, "ab", []string{"unknown merge variable {{nope}}"}},
		{"unknown trimmed and deduplicated", "{{ nope }}{{nope}}{{x.y}}", fx, "", []string{"unknown merge variable {{nope}}", "unknown merge variable {{x.y}}"}},
		{"unknown message field", "{{message.colour}}", fx, "", []string{"unknown merge variable {{message.colour}}"}},
		{"message fields are case-sensitive", "{{message.Content}}", fx, "", []string{"unknown merge variable {{message.Content}}"}},
		{"scopes are case-sensitive", "{{Account.number}}{{account.Number}}", fx, "", []string{"unknown merge variable {{Account.number}}", "unknown merge variable {{account.Number}}"}},
		{"empty question", "{{message.answers.}}", fx, "", []string{"unknown merge variable {{message.answers.}}"}},
		{"bare message", "{{message}}{{message.}}", fx, "", []string{"unknown merge variable {{message}}", "unknown merge variable {{message.}}"}},
		{"empty name", "a{{}}b{{  }}c", fx, "abc", []string{"unknown merge variable {{}}"}},
		{"unclosed", "x {{account.number", fx, "x {{account.number", nil},
		{"unclosed after variable", "{{account.number}} and {{", fx, "ACC-1001 and {{", nil},
		{"single braces", "{account.number} }}{", fx, "{account.number} }}{", nil},
		{"nested braces", "{{{{account.number}}}}", fx, "{{ACC-1001}}", nil},
		{"triple braces", "{{{account.number}}}", fx, "{ACC-1001}", nil},
		{"adjacent", "{{account.number}}{{contact.name}}", fx, "ACC-1001Dana O'Neil", nil},
		{"brace inside name is literal", "{{acc}ount}} {{account.number}}", fx, "{{acc}ount}} ACC-1001", nil},
		{"brace opener inside", "{{a {{account.number}}", fx, "{{a ACC-1001", nil},
		{"unicode around", "Grüße {{ message.first_name }} 🎉 {{contact.name}}", fx, "Grüße Zoë 🎉 Dana O'Neil", nil},
		{"nil data", "<{{message.content}}{{account.number}}>", nil, "<>", nil},
		{"nil message", "<{{message.id}}{{message.answers.Q}}>", &answerdesk.MergeData{}, "<>", []string{`no answer to "Q" on this message`}},
		{"corrupt answers", "<{{message.content}}{{message.answers}}>", &answerdesk.MergeData{Message: &answerdesk.Message{Content: "hi", Answers: json.RawMessage(`{"a":`)}}, "<hi>", nil},
		{"empty answers", "<{{message.answers.a}}>", &answerdesk.MergeData{Message: &answerdesk.Message{Answers: json.RawMessage{}}}, "<>", []string{`no answer to "a" on this message`}},
		{"array answers", "<{{message.answers.a}}>", &answerdesk.MergeData{Message: &answerdesk.Message{Answers: json.RawMessage(`[1]`)}}, "<>", []string{`no answer to "a" on this message`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := answerdesk.Render(tc.tmpl, tc.data)
			if got != tc.want {
				t.Errorf("Render(%q) = %q, want %q", tc.tmpl, got, tc.want)
			}
			if !slices.Equal(warnings, tc.warnings) {
				t.Errorf("Render(%q) warnings = %q, want %q", tc.tmpl, warnings, tc.warnings)
			}
		})
	}
}

// messageJSONTags lists the JSON names of the Message struct's fields.
func messageJSONTags(t testing.TB) []string {
	t.Helper()
	var tags []string
	typ := reflect.TypeFor[answerdesk.Message]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Fatalf("field %s has no JSON name", typ.Field(i).Name)
		}
		tags = append(tags, name)
	}
	return tags
}

// TestMergeMessageFields checks that the message fields a merge variable may name are
// exactly the Message struct's JSON tags, and that each renders as its API form.
func TestMergeMessageFields(t *testing.T) {
	tags := messageJSONTags(t)
	fx := mergeFixture()
	b, err := json.Marshal(fx.Message)
	if err != nil {
		t.Fatal(err)
	}
	var api map[string]any
	if err := json.Unmarshal(b, &api); err != nil {
		t.Fatal(err)
	}
	if len(api) != len(tags) {
		t.Fatalf("API form has %d fields, struct has %d tags", len(api), len(tags))
	}
	for _, tag := range tags {
		v := "{{message." + tag + "}}"
		if u := answerdesk.UnknownMergeVariables(v); u != nil {
			t.Errorf("%s reported unknown: %q", v, u)
		}
		got, warnings := answerdesk.Render(v, fx)
		if warnings != nil {
			t.Errorf("%s warned %q", v, warnings)
		}
		switch want := api[tag].(type) {
		case string:
			if got != want {
				t.Errorf("%s = %q, want %q", v, got, want)
			}
		case nil:
			if got != "" {
				t.Errorf("%s = %q, want empty for null", v, got)
			}
		default:
			if got == "" {
				t.Errorf("%s rendered empty for %v", v, want)
			}
		}
	}
	// Anything else under message. is unknown, answers questions aside.
	for _, name := range []string{"Content", "contents", "answers_", "ID", "Answers", "account_number"} {
		v := "{{message." + name + "}}"
		if u := answerdesk.UnknownMergeVariables(v); !slices.Equal(u, []string{v}) {
			t.Errorf("UnknownMergeVariables(%s) = %q", v, u)
		}
	}
}

func TestUnknownMergeVariables(t *testing.T) {
	tests := []struct {
		tmpl string
		want []string
	}{
		{"", nil},
		{"no variables {", nil},
		{"{{account.number}}{{account.name}}{{contact.name}}", nil},
		{"{{ message.content }} {{message.answers}} {{message.created_at}}", nil},
		{"{{message.answers.Any question. With dots and spaces?}}", nil},
		{"{{message.answers.Téléphone}}", nil},
		{"{{message.nope}}", []string{"{{message.nope}}"}},
		{"{{ message.nope }} {{message.nope}} {{contact.phone}}", []string{"{{message.nope}}", "{{contact.phone}}"}},
		{"{{account.Number}}", []string{"{{account.Number}}"}},
		{"{{message.answers.}}", []string{"{{message.answers.}}"}},
		{"{{message.answers.   }}", []string{"{{message.answers.}}"}},
		{"{{}}", []string{"{{}}"}},
		{"{{{{nope}}}}", []string{"{{nope}}"}},
		{"{{nope", nil},
		{"{{no}pe}}", nil},
		{"{message.nope}", nil},
	}
	for _, tc := range tests {
		if got := answerdesk.UnknownMergeVariables(tc.tmpl); !slices.Equal(got, tc.want) {
			t.Errorf("UnknownMergeVariables(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func TestRenderPayloadJSON(t *testing.T) {
	fields := []answerdesk.PayloadField{
		{Field: "account", Value: "{{account.number}}"},
		{Field: "message", Value: "{{message.content}}"},
		{Field: "callback", Value: "Call {{ message.answers.Callback number }} <now>"},
		{Field: "emergency", Value: "{{message.is_emergency}}"},
		{Field: "name", Value: "{{message.first_name}} {{message.last_name}}"},
		{Field: "account", Value: "{{account.name}}"}, // duplicate: first position, last value
		{Field: "missing", Value: "{{message.answers.Reason}}{{nope}}"},
		{Field: "quote\"d", Value: "line1\nline2\t\"q\" \\ é"},
		{Field: "nested", Value: "{{message.answers.Nested}}"},
		{Field: "missing2", Value: "{{message.answers.Reason}}"},
	}
	body, ct, warnings, err := answerdesk.RenderPayload(answerdesk.PayloadJSON, fields, mergeFixture())
	if err != nil {
		t.Fatal(err)
	}
	if ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	want := `{"account":"Acme & Sons",` +
		`"message":"Leak in the basement. Literal {{message.content}} and {{account.name}} stay.",` +
		`"callback":"Call 555-0100 <now>","emergency":"true","name":"Zoë ","missing":"",` +
		`"quote\"d":"line1\nline2\t\"q\" \\ é","nested":"{\"a\":\"<x> & y\",\"b\":[1,2.0]}","missing2":""}`
	if string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	wantWarnings := []string{`no answer to "Reason" on this message`, "unknown merge variable {{nope}}"}
	if !slices.Equal(warnings, wantWarnings) {
		t.Errorf("warnings %q, want %q", warnings, wantWarnings)
	}

	// Lower case is accepted, and no fields give an empty object.
	body, ct, warnings, err = answerdesk.RenderPayload("json", nil, nil)
	if err != nil || string(body) != "{}" || ct != "application/json" || warnings != nil {
		t.Errorf("empty JSON payload: %s %q %q %v", body, ct, warnings, err)
	}
}

func TestRenderPayloadForm(t *testing.T) {
	fields := []answerdesk.PayloadField{
		{Field: "account", Value: "{{account.number}}"},
		{Field: "text", Value: "{{message.content}}"},
		{Field: "who & what", Value: "{{contact.name}} = {{message.first_name}}; 100%+"},
		{Field: "account", Value: "{{account.name}}"},
		{Field: "missing", Value: "{{message.answers.Reason}}"},
	}
	body, ct, warnings, err := answerdesk.RenderPayload(answerdesk.PayloadForm, fields, mergeFixture())
	if err != nil {
		t.Fatal(err)
	}
	if ct != "application/x-www-form-urlencoded" {
		t.Errorf("content type %q", ct)
	}
	if !slices.Equal(warnings, []string{`no answer to "Reason" on this message`}) {
		t.Errorf("warnings %q", warnings)
	}
	if !strings.HasPrefix(string(body), "account=Acme+%26+Sons&text=") {
		t.Errorf("order or dedup wrong: %s", body)
	}
	q, err := url.ParseQuery(string(body))
	if err != nil {
		t.Fatalf("ParseQuery(%s): %v", body, err)
	}
	want := url.Values{
		"account":    {"Acme & Sons"},
		"text":       {mergeFixture().Message.Content},
		"who & what": {"Dana O'Neil = Zoë; 100%+"},
		"missing":    {""},
	}
	if !reflect.DeepEqual(q, want) {
		t.Errorf("parsed %v, want %v", q, want)
	}
}

func TestRenderPayloadUnknownType(t *testing.T) {
	for _, typ := range []string{"", "XML", "JSONX", " JSON"} {
		body, ct, warnings, err := answerdesk.RenderPayload(typ, []answerdesk.PayloadField{{Field: "a", Value: "{{nope}}"}}, nil)
		if answerdesk.ErrorCode(err) != answerdesk.EINVALID || body != nil || ct != "" || warnings != nil {
			t.Errorf("RenderPayload(%q) = %s %q %q %v", typ, body, ct, warnings, err)
		}
	}
}

// warnedName returns the variable or question a Render warning names.
func warnedName(t *testing.T, w string) string {
	t.Helper()
	if name, ok := strings.CutPrefix(w, "unknown merge variable {{"); ok && strings.HasSuffix(name, "}}") {
		return strings.TrimSuffix(name, "}}")
	}
	if q, ok := strings.CutPrefix(w, "no answer to "); ok && strings.HasSuffix(q, " on this message") {
		s, err := strconv.Unquote(strings.TrimSuffix(q, " on this message"))
		if err != nil {
			t.Fatalf("warning %q: %v", w, err)
		}
		return s
	}
	t.Fatalf("unexpected warning %q", w)
	return ""
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"", "plain", "{{", "}}", "{{}}", "{{ }}", "{{{{x}}}}", "{{{account.number}}}", "{{account.number}}{{contact.name}}",
		"{{message.content}}", "{{ message.answers.Callback number }}", "{{message.answers.Reason}}", "{{message.answers.}}",
		"{{nope}} {{nope", "{{a}b}}", "{{a {{message.id}}", "Grüße {{message.first_name}} 🎉", "{{\xff}}", "{{message.answers.\xff}}",
		"{{message.answers.mixed case}}", strings.Repeat("{", 50) + "x" + strings.Repeat("}", 50),
	} {
		f.Add(s)
	}
	fx := mergeFixture()
	f.Fuzz(func(t *testing.T, tmpl string) {
		out, warnings := answerdesk.Render(tmpl, fx)
		if !strings.Contains(tmpl, "{{") && (out != tmpl || warnings != nil) {
			t.Fatalf("Render(%q) changed a template without variables: %q %q", tmpl, out, warnings)
		}
		var unknown []string
		for _, w := range warnings {
			name := warnedName(t, w)
			if !strings.Contains(tmpl, name) {
				t.Fatalf("Render(%q) warned about %q, which is not in the input", tmpl, w)
			}
			if strings.HasPrefix(w, "unknown") {
				unknown = append(unknown, "{{"+name+"}}")
			}
		}
		if u := answerdesk.UnknownMergeVariables(tmpl); !slices.Equal(u, unknown) {
			t.Fatalf("UnknownMergeVariables(%q) = %q, Render warned %q", tmpl, u, warnings)
		}
		if again, w2 := answerdesk.Render(tmpl, fx); again != out || !slices.Equal(w2, warnings) {
			t.Fatalf("Render(%q) is not deterministic", tmpl)
		}
	})
}

func FuzzRenderPayload(f *testing.F) {
	f.Add("a", "{{account.number}}", "b", "{{message.content}}", "a", "{{nope}}")
	f.Add("", "", "", "", "", "")
	f.Add("x\xff", "\xfe{{message.answers.Nested}}", "x\xfe", "v", "<&>", "{{{{contact.name}}}}")
	f.Add("é", "\u2028", "é", "\"\\", "k", "{{message.answers.Reason}}")
	fx := mergeFixture()
	f.Fuzz(func(t *testing.T, f1, v1, f2, v2, f3, v3 string) {
		fields := []answerdesk.PayloadField{{Field: f1, Value: v1}, {Field: f2, Value: v2}, {Field: f3, Value: v3}}
		want := map[string]string{}
		for _, fl := range fields {
			v, _ := answerdesk.Render(fl.Value, fx)
			want[strings.ToValidUTF8(fl.Field, "\uFFFD")] = strings.ToValidUTF8(v, "\uFFFD")
		}

		body, _, _, err := answerdesk.RenderPayload(answerdesk.PayloadJSON, fields, fx)
		if err != nil {
			t.Fatal(err)
		}
		if ref := referenceJSONPayload(fields, fx); !bytes.Equal(body, ref) {
			t.Fatalf("body %q, encoding/json writes %q", body, ref)
		}
		if !json.Valid(body) {
			t.Fatalf("invalid JSON %q", body)
		}
		// Count the keys as written, so a duplicate key cannot hide in the decoded map.
		dec := json.NewDecoder(bytes.NewReader(body))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("not an object: %q", body)
		}
		keys := 0
		for dec.More() {
			if _, err := dec.Token(); err != nil {
				t.Fatal(err)
			}
			if _, err := dec.Token(); err != nil {
				t.Fatal(err)
			}
			keys++
		}
		if keys != len(want) {
			t.Fatalf("%d keys, want %d: %s", keys, len(want), body)
		}
		var got map[string]string
		if err := json.Unmarshal(body, &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %q (%v), want %q", got, err, want)
		}

		body, _, _, err = answerdesk.RenderPayload(answerdesk.PayloadForm, fields, fx)
		if err != nil {
			t.Fatal(err)
		}
		if ref := referenceFormPayload(fields, fx); string(body) != ref {
			t.Fatalf("form body %q, url.QueryEscape writes %q", body, ref)
		}
		q, err := url.ParseQuery(string(body))
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", body, err)
		}
		if len(q) != len(want) {
			t.Fatalf("form has %d keys, want %d: %s", len(q), len(want), body)
		}
		for k, v := range want {
			if vs := q[k]; len(vs) != 1 || vs[0] != v {
				t.Fatalf("form %q = %q, want %q", k, vs, v)
			}
		}
	})
}

// referencePayload renders fields the unbounded way (every value whole, first position,
// last value) and joins them with enc, to check the budgeted renderer byte for byte.
func referencePayload(fields []answerdesk.PayloadField, d *answerdesk.MergeData, enc func(name, value string) string, sep string) string {
	var names []string
	values := map[string]string{}
	for _, f := range fields {
		name := strings.ToValidUTF8(f.Field, "\uFFFD")
		v, _ := answerdesk.Render(f.Value, d)
		if _, dup := values[name]; !dup {
			names = append(names, name)
		}
		values[name] = strings.ToValidUTF8(v, "\uFFFD")
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = enc(n, values[n])
	}
	return strings.Join(parts, sep)
}

func referenceJSONPayload(fields []answerdesk.PayloadField, d *answerdesk.MergeData) []byte {
	str := func(s string) string {
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		_ = e.Encode(s)
		return strings.TrimSuffix(b.String(), "\n")
	}
	return []byte("{" + referencePayload(fields, d, func(n, v string) string { return str(n) + ":" + str(v) }, ",") + "}")
}

func referenceFormPayload(fields []answerdesk.PayloadField, d *answerdesk.MergeData) string {
	return referencePayload(fields, d, func(n, v string) string { return url.QueryEscape(n) + "=" + url.QueryEscape(v) }, "&")
}

// amplificationFields is the amplification attack: the most data fields a method may have,
// each value the largest allowed (10,000 characters) and made of nothing but
// {{message.content}}, 526 times.
func amplificationFields() []answerdesk.PayloadField {
	const v = "{{message.content}}"
	value := strings.Repeat(v, 10000/len(v))
	fields := make([]answerdesk.PayloadField, answerdesk.MaxPayloadFields)
	for i := range fields {
		fields[i] = answerdesk.PayloadField{Field: fmt.Sprintf("f%02d", i), Value: value}
	}
	return fields
}

// amplificationMessage is a 20 KB message with multi-byte characters, quotes and control
// characters, so cuts land inside runes and escapes.
func amplificationMessage() *answerdesk.MergeData {
	unit := "Caller Zoë said \"the water heater is leaking\"\n\ttank ☎ 555-0100 & 100% <urgent>\x01. "
	content := strings.Repeat(unit, 20000/len(unit)+1)[:20000]
	content = strings.ToValidUTF8(content, "") // the cut may split a rune
	return &answerdesk.MergeData{Message: &answerdesk.Message{ID: 1, Content: content}, AccountNumber: "1001"}
}

func TestRenderPayloadBudget(t *testing.T) {
	const limit = answerdesk.MaxPayloadBytes
	attack := amplificationFields()
	tests := []struct {
		name        string
		payloadType string
		fields      []answerdesk.PayloadField
		wantLen     int  // exact length, or 0 for "at most the limit"
		wantCut     bool // a warning says values were cut
	}{
		{"json amplification of a 20 KB message by 50 fields stays within 256 KiB", answerdesk.PayloadJSON, attack, 0, true},
		{"form amplification of a 20 KB message by 50 fields stays within 256 KiB", answerdesk.PayloadForm, attack, 0, true},
		{"json body of exactly 256 KiB is not cut", answerdesk.PayloadJSON,
			[]answerdesk.PayloadField{{Field: "a", Value: strings.Repeat("x", limit-len(`{"a":""}`))}}, limit, false},
		{"json body one byte over 256 KiB is cut", answerdesk.PayloadJSON,
			[]answerdesk.PayloadField{{Field: "a", Value: strings.Repeat("x", limit-len(`{"a":""}`)+1)}}, limit, true},
		{"form body of exactly 256 KiB is not cut", answerdesk.PayloadForm,
			[]answerdesk.PayloadField{{Field: "a", Value: strings.Repeat("x", limit-len(`a=`))}}, limit, false},
		{"form body one byte over 256 KiB is cut", answerdesk.PayloadForm,
			[]answerdesk.PayloadField{{Field: "a", Value: strings.Repeat("x", limit-len(`a=`)+1)}}, limit, true},
		{"json cut never splits a three-byte rune", answerdesk.PayloadJSON,
			[]answerdesk.PayloadField{{Field: "a", Value: "x" + strings.Repeat("☎", limit/3)}}, 0, true},
		{"json cut never splits an escape", answerdesk.PayloadJSON,
			[]answerdesk.PayloadField{{Field: "a", Value: "xy" + strings.Repeat("\x01", limit/6)}}, 0, true},
		{"form cut never splits a percent-escaped rune", answerdesk.PayloadForm,
			[]answerdesk.PayloadField{{Field: "a", Value: "x" + strings.Repeat("é", limit/6+1)}}, 0, true},
		{"every field keeps its key when the first value fills the body", answerdesk.PayloadJSON,
			[]answerdesk.PayloadField{{Field: "big", Value: strings.Repeat("{{message.content}}", 100)}, {Field: "account", Value: "{{account.number}}"}}, limit, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body, _, warnings, err := answerdesk.RenderPayload(tc.payloadType, tc.fields, amplificationMessage())
			if err != nil {
				t.Fatal(err)
			}
			if len(body) > limit || (tc.wantLen != 0 && len(body) != tc.wantLen) {
				t.Fatalf("body is %d bytes, want at most %d (exactly %d)", len(body), limit, tc.wantLen)
			}
			if !utf8.Valid(body) {
				t.Fatal("body is not valid UTF-8: a rune was cut")
			}
			cutWarned := slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "values were cut") })
			if cutWarned != tc.wantCut {
				t.Fatalf("warnings %q, want a cut warning: %v", warnings, tc.wantCut)
			}
			// Every configured field is in the body, and each value is a prefix of what the
			// unbounded render gives: cut, never altered.
			want := map[string]string{}
			for _, f := range tc.fields {
				want[f.Field], _ = answerdesk.Render(f.Value, amplificationMessage())
			}
			got := map[string]string{}
			if tc.payloadType == answerdesk.PayloadJSON {
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("body is not a JSON object (%v): ...%s", err, body[max(0, len(body)-40):])
				}
			} else {
				q, err := url.ParseQuery(string(body))
				if err != nil {
					t.Fatalf("body is not a form (%v): ...%s", err, body[max(0, len(body)-40):])
				}
				for k, v := range q {
					got[k] = v[0]
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d fields in the body, want %d", len(got), len(want))
			}
			for k, v := range got {
				if !strings.HasPrefix(want[k], v) {
					t.Fatalf("field %q = %.40q..., not a prefix of its full value", k, v)
				}
			}
			if tc.wantLen == limit && !tc.wantCut && got["a"] != want["a"] {
				t.Fatal("a value that fits exactly was changed")
			}
		})
	}
}

// TestRenderPayloadStopsExpanding proves the budget is spent while rendering, not after: the
// unbounded render of the amplification attack allocates 526 MB; the budgeted one a small
// multiple of the 256 KiB body.
func TestRenderPayloadStopsExpanding(t *testing.T) {
	fields, d := amplificationFields(), amplificationMessage()
	for _, typ := range []string{answerdesk.PayloadJSON, answerdesk.PayloadForm} {
		t.Run(typ, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			body, _, _, err := answerdesk.RenderPayload(typ, fields, d)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
				t.Fatalf("rendering a %d-byte body allocated %d bytes, want at most 4 MiB", len(body), alloc)
			}
		})
	}
}

func TestRenderBounded(t *testing.T) {
	// "☎" is three bytes: repeated after one "x", the limit falls inside a rune.
	d := &answerdesk.MergeData{Message: &answerdesk.Message{Content: "x" + strings.Repeat("☎", 20000)}}
	out, warnings := answerdesk.Render(strings.Repeat("{{message.content}}", 100), d)
	if len(out) > answerdesk.MaxPayloadBytes || !utf8.ValidString(out) {
		t.Fatalf("Render gave %d bytes (valid UTF-8: %v), want at most %d", len(out), utf8.ValidString(out), answerdesk.MaxPayloadBytes)
	}
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "was cut") }) {
		t.Fatalf("warnings %q, want one saying the text was cut", warnings)
	}
}

func BenchmarkRenderPayload(b *testing.B) {
	cases := []struct {
		name   string
		fields []answerdesk.PayloadField
		d      *answerdesk.MergeData
	}{
		{"typical", []answerdesk.PayloadField{
			{Field: "account", Value: "{{account.number}}"}, {Field: "message", Value: "{{message.content}}"},
			{Field: "callback", Value: "{{message.answers.Callback number}}"}, {Field: "caller", Value: "{{message.first_name}} {{message.last_name}}"},
		}, mergeFixture()},
		{"amplification_50x526_20KB", amplificationFields(), amplificationMessage()},
	}
	for _, c := range cases {
		for _, typ := range []string{answerdesk.PayloadJSON, answerdesk.PayloadForm} {
			b.Run(c.name+"/"+typ, func(b *testing.B) {
				b.ReportAllocs()
				var n int
				for b.Loop() {
					body, _, _, err := answerdesk.RenderPayload(typ, c.fields, c.d)
					if err != nil {
						b.Fatal(err)
					}
					n = len(body)
				}
				b.ReportMetric(float64(n), "body-bytes")
			})
		}
	}
}
