package answerdesk_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
