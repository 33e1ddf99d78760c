package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/go-chi/chi/v5"
)

// These tests keep rest/openapi/v2.json honest: every /api/v2 route of the router is
// documented and nothing else is, the document is structurally sound, its schemas name the
// same properties as the Go types the handlers encode, and it is served byte for byte.

const openAPIFile = "openapi/v2.json"

// openAPIMethods are the operation keys of an OpenAPI path item.
var openAPIMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// loadOpenAPI parses the document on disk (the same bytes the binary embeds).
func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, openAPIV2) {
		t.Fatalf("%s differs from the embedded openAPIV2; rebuild", openAPIFile)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s is not valid JSON: %v", openAPIFile, err)
	}
	if dec.More() {
		t.Fatalf("%s has data after the JSON document", openAPIFile)
	}
	return doc
}

// obj returns v[key] as an object, or nil.
func oaObj(v any, key string) map[string]any {
	m, _ := v.(map[string]any)
	o, _ := m[key].(map[string]any)
	return o
}

// oaRouterRoutes walks the real router and returns "METHOD /path" for every route under
// /api/v2, HEAD and OPTIONS aside.
func oaRouterRoutes(t *testing.T) map[string]bool {
	t.Helper()
	h := (&Server{Logger: slog.New(slog.DiscardHandler)}).Handler()
	routes, ok := h.(chi.Routes)
	if !ok {
		t.Fatalf("Handler() returned %T, not a chi.Routes", h)
	}
	got := map[string]bool{}
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodHead || method == http.MethodOptions {
			return nil
		}
		route = strings.ReplaceAll(route, "/*/", "/") // chi's mount marker, should a subrouter show one
		if len(route) > 1 {
			route = strings.TrimSuffix(route, "/")
		}
		if route == "/api/v2" || strings.HasPrefix(route, "/api/v2/") {
			got[method+" "+route] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	routes := oaRouterRoutes(t)
	if len(routes) == 0 {
		t.Fatal("walking the router found no /api/v2 routes")
	}
	documented := map[string]bool{}
	for path, item := range oaObj(doc, "paths") {
		for _, m := range openAPIMethods {
			if _, ok := item.(map[string]any)[m]; ok {
				documented[strings.ToUpper(m)+" "+path] = true
			}
		}
	}
	var missing, extra []string
	for r := range routes {
		if !documented[r] {
			missing = append(missing, r)
		}
	}
	for d := range documented {
		if !routes[d] {
			extra = append(extra, d)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("routes missing from %s:\n  %s", openAPIFile, strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("operations in %s that the router does not serve:\n  %s", openAPIFile, strings.Join(extra, "\n  "))
	}
}

var (
	oaCamelCase     = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	oaPathTemplate  = regexp.MustCompile(`\{([^{}]+)\}`)
	oaComponentName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
)

// resolvePointer follows a local JSON pointer ("#/components/schemas/Message") in doc.
func oaResolve(doc map[string]any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("not a local reference")
	}
	var cur any = doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no index %q", tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("cannot descend into %q", tok)
		}
	}
	return cur, nil
}

// deref follows $ref (repeatedly) and returns the object it names.
func oaDeref(doc map[string]any, v any) map[string]any {
	for range 10 {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		v, _ = oaResolve(doc, ref)
	}
	return nil
}

// walkJSON calls fn with the JSON pointer of every value in v.
func oaWalk(v any, at string, fn func(at string, v any)) {
	fn(at, v)
	switch c := v.(type) {
	case map[string]any:
		for k, e := range c {
			oaWalk(e, at+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), fn)
		}
	case []any:
		for i, e := range c {
			oaWalk(e, at+"/"+strconv.Itoa(i), fn)
		}
	}
}

func TestOpenAPIIsValid(t *testing.T) {
	doc := loadOpenAPI(t)

	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi = %v, want 3.1.0", doc["openapi"])
	}
	info := oaObj(doc, "info")
	for _, k := range []string{"title", "version", "description"} {
		if s, _ := info[k].(string); s == "" {
			t.Errorf("info.%s is missing", k)
		}
	}
	if servers, _ := doc["servers"].([]any); len(servers) == 0 {
		t.Error("servers is missing")
	}

	// Every $ref resolves, and points into components.
	oaWalk(doc, "#", func(at string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		ref, ok := m["$ref"]
		if !ok {
			return
		}
		s, _ := ref.(string)
		if !strings.HasPrefix(s, "#/components/") {
			t.Errorf("%s: $ref %q does not point into #/components", at, ref)
			return
		}
		if _, err := oaResolve(doc, s); err != nil {
			t.Errorf("%s: $ref %q does not resolve: %v", at, s, err)
		}
	})

	// Components are well named; security requirements name defined schemes.
	components := oaObj(doc, "components")
	for kind, v := range components {
		for name := range v.(map[string]any) {
			if !oaComponentName.MatchString(name) {
				t.Errorf("components.%s.%s: name is not allowed by OpenAPI", kind, name)
			}
		}
	}
	schemes := oaObj(components, "securitySchemes")
	bearer := oaObj(schemes, "bearerAuth")
	if bearer["type"] != "http" || !strings.EqualFold(fmt.Sprint(bearer["scheme"]), "bearer") {
		t.Errorf("securitySchemes.bearerAuth = %v, want type http, scheme bearer", bearer)
	}
	checkSecurity := func(at string, v any) {
		reqs, ok := v.([]any)
		if !ok {
			t.Errorf("%s: security is not an array", at)
			return
		}
		for _, r := range reqs {
			for name := range r.(map[string]any) {
				if _, ok := schemes[name]; !ok {
					t.Errorf("%s: security names undefined scheme %q", at, name)
				}
			}
		}
	}
	if sec, ok := doc["security"]; ok {
		checkSecurity("#/security", sec)
	} else {
		t.Error("no top-level security requirement")
	}

	opIDs := map[string]string{}
	for path, rawItem := range oaObj(doc, "paths") {
		item := rawItem.(map[string]any)
		if !strings.HasPrefix(path, "/api/v2/") {
			t.Errorf("path %s: want the full path under /api/v2/", path)
		}
		templated := map[string]bool{}
		for _, m := range oaPathTemplate.FindAllStringSubmatch(path, -1) {
			templated[m[1]] = true
		}
		for _, method := range openAPIMethods {
			rawOp, ok := item[method]
			if !ok {
				continue
			}
			op := rawOp.(map[string]any)
			at := strings.ToUpper(method) + " " + path

			id, _ := op["operationId"].(string)
			switch {
			case id == "":
				t.Errorf("%s: no operationId", at)
			case !oaCamelCase.MatchString(id):
				t.Errorf("%s: operationId %q is not oaCamelCase", at, id)
			case opIDs[id] != "":
				t.Errorf("%s: operationId %q is also used by %s", at, id, opIDs[id])
			default:
				opIDs[id] = at
			}
			for _, k := range []string{"summary", "description"} {
				if s, _ := op[k].(string); s == "" {
					t.Errorf("%s: no %s", at, k)
				}
			}
			if sec, ok := op["security"]; ok {
				checkSecurity(at, sec)
			}

			responses, _ := op["responses"].(map[string]any)
			if _, ok := responses["200"]; !ok {
				t.Errorf("%s: no 200 response", at)
			}
			for code, r := range responses {
				resp := oaDeref(doc, r)
				if resp == nil {
					t.Errorf("%s: response %s does not resolve", at, code)
					continue
				}
				if s, _ := resp["description"].(string); s == "" {
					t.Errorf("%s: response %s has no description", at, code)
				}
				schema := oaObj(oaObj(oaObj(resp, "content"), "application/json"), "schema")
				if schema == nil {
					t.Errorf("%s: response %s has no application/json schema", at, code)
					continue
				}
				if code != "200" && schema["$ref"] != "#/components/schemas/Error" {
					t.Errorf("%s: response %s is not the Error schema", at, code)
				}
			}

			// Parameters: path-level and operation-level, unique by (in, name); every
			// template variable declared as a required path parameter and vice versa.
			var params []any
			if p, ok := item["parameters"].([]any); ok {
				params = append(params, p...)
			}
			if p, ok := op["parameters"].([]any); ok {
				params = append(params, p...)
			}
			seen := map[string]bool{}
			declared := map[string]bool{}
			for _, rawP := range params {
				p := oaDeref(doc, rawP)
				if p == nil {
					t.Errorf("%s: parameter %v does not resolve", at, rawP)
					continue
				}
				name, _ := p["name"].(string)
				in, _ := p["in"].(string)
				if name == "" || !slices.Contains([]string{"path", "query", "header", "cookie"}, in) {
					t.Errorf("%s: parameter %v lacks a name or a valid in", at, p)
					continue
				}
				if seen[in+":"+name] {
					t.Errorf("%s: parameter %s in %s is declared twice", at, name, in)
				}
				seen[in+":"+name] = true
				schema := oaDeref(doc, p["schema"])
				if schema == nil || schema["type"] == nil {
					t.Errorf("%s: parameter %s has no schema type", at, name)
				}
				if s, _ := p["description"].(string); s == "" {
					t.Errorf("%s: parameter %s has no description", at, name)
				}
				if in == "path" {
					declared[name] = true
					if p["required"] != true {
						t.Errorf("%s: path parameter %s is not required: true", at, name)
					}
					if !templated[name] {
						t.Errorf("%s: path parameter %s is not in the path template", at, name)
					}
				}
			}
			for name := range templated {
				if !declared[name] {
					t.Errorf("%s: template variable {%s} is not declared as a path parameter", at, name)
				}
			}

			if method == "post" || method == "put" || method == "patch" {
				if body, ok := op["requestBody"]; ok {
					b := oaDeref(doc, body)
					if oaObj(oaObj(b, "content"), "application/json")["schema"] == nil {
						t.Errorf("%s: requestBody has no application/json schema", at)
					}
				}
			}
		}
	}

	// The one unauthenticated route says so; every other operation inherits bearer auth.
	spec := oaObj(oaObj(oaObj(doc, "paths"), "/api/v2/openapi.json"), "get")
	if sec, ok := spec["security"].([]any); !ok || len(sec) != 0 {
		t.Errorf("GET /api/v2/openapi.json: security = %v, want []", spec["security"])
	}
}

// jsonNames returns the JSON property names a struct type encodes.
func oaJSONNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func oaSchemaProps(doc map[string]any, name string) map[string]any {
	return oaObj(oaObj(oaObj(oaObj(doc, "components"), "schemas"), name), "properties")
}

func oaKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestOpenAPISchemasMatchTypes checks that the documented schemas name exactly the properties
// the handlers encode, and that documented limits are the ones the code validates.
func TestOpenAPISchemasMatchTypes(t *testing.T) {
	doc := loadOpenAPI(t)
	for name, typ := range map[string]reflect.Type{
		"Message":       reflect.TypeFor[answerdesk.Message](),
		"CallRecording": reflect.TypeFor[answerdesk.CallRecording](),
		"CDR":           reflect.TypeFor[answerdesk.CDR](),
		"PageMeta":      reflect.TypeFor[answerdesk.PageMeta](),
		"Error":         reflect.TypeFor[ErrorObject](),
		"FieldError":    reflect.TypeFor[answerdesk.FieldError](),
		"ToDo":          reflect.TypeFor[answerdesk.ToDo](),
		"ToDoSchedule":  reflect.TypeFor[answerdesk.ToDoSchedule](),
		"LastDelivery":  reflect.TypeFor[answerdesk.LastDelivery](),
	} {
		props := oaSchemaProps(doc, name)
		if props == nil {
			t.Errorf("components.schemas.%s is missing", name)
			continue
		}
		got, want := oaKeys(props), oaJSONNames(typ)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("schema %s lacks property %q of %s", name, w, typ)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("schema %s has property %q that %s does not encode", name, g, typ)
			}
		}
	}
	// Types without omitempty always encode every property: the schema requires them all.
	for _, name := range []string{"Message", "CallRecording", "CDR", "ToDo", "ToDoSchedule", "LastDelivery"} {
		s := oaObj(oaObj(oaObj(doc, "components"), "schemas"), name)
		req, _ := s["required"].([]any)
		for p := range oaSchemaProps(doc, name) {
			if !slices.Contains(req, any(p)) {
				t.Errorf("schema %s: property %q is always present but not required", name, p)
			}
		}
	}

	// Every optional string property accepted on create is documented on MessageCreate.
	create := oaSchemaProps(doc, "MessageCreate")
	for _, f := range append(answerdesk.MessageStringFields(), "content", "origin", "account_number",
		"escalation_level_id", "from_ai_assistant", "is_emergency", "answers") {
		if _, ok := create[f]; !ok {
			t.Errorf("MessageCreate does not document %q", f)
		}
	}

	// Query parameter limits match the constants the code validates with.
	param := func(path, name string) map[string]any {
		op := oaObj(oaObj(oaObj(doc, "paths"), path), "get")
		ps, _ := op["parameters"].([]any)
		for _, p := range ps {
			if pm := oaDeref(doc, p); pm["name"] == name && pm["in"] == "query" {
				return oaDeref(doc, pm["schema"])
			}
		}
		t.Errorf("GET %s does not document query parameter %s", path, name)
		return nil
	}
	limits := []struct {
		path, name   string
		def, min, mx float64
	}{
		{"/api/v2/messages", "page_size", answerdesk.DefaultMessagePageSize, 1, answerdesk.MaxMessagePageSize},
		{"/api/v2/messages", "page", 1, 1, 1_000_000},
		{"/api/v2/messages/recents", "limit", answerdesk.DefaultRecentLimit, 1, answerdesk.MaxRecentLimit},
		{"/api/v2/call-recordings", "page_size", answerdesk.DefaultRecordingPageSize, 1, answerdesk.MaxRecordingPageSize},
		{"/api/v2/call-recordings", "page", 1, 1, 1_000_000},
		{"/api/v2/to-dos", "page_size", answerdesk.DefaultToDoPageSize, 1, answerdesk.MaxToDoPageSize},
		{"/api/v2/to-dos", "page", 1, 1, 1_000_000},
	}
	for _, l := range limits {
		s := param(l.path, l.name)
		if s == nil {
			continue
		}
		if s["type"] != "integer" || s["default"] != l.def || s["minimum"] != l.min || s["maximum"] != l.mx {
			t.Errorf("GET %s %s schema = %v, want integer default %v minimum %v maximum %v", l.path, l.name, s, l.def, l.min, l.mx)
		}
	}
	const datePat = `^[0-1][0-9]-[0-3][0-9]-[0-9]{4}$`
	for _, p := range [][2]string{
		{"/api/v2/messages", "start_date"}, {"/api/v2/messages", "end_date"},
		{"/api/v2/call-recordings", "from_date"}, {"/api/v2/call-recordings", "to_date"},
	} {
		if s := param(p[0], p[1]); s != nil && (s["type"] != "string" || s["pattern"] != datePat) {
			t.Errorf("GET %s %s schema = %v, want string with pattern %s", p[0], p[1], s, datePat)
		}
	}
	for _, p := range [][2]string{
		{"/api/v2/messages", "origin"}, {"/api/v2/messages", "status"}, {"/api/v2/messages", "read"},
		{"/api/v2/call-recordings", "account_id"}, {"/api/v2/call-recordings", "skill_name"},
		{"/api/v2/call-recordings", "sample"},
	} {
		param(p[0], p[1])
	}

	// Enumerations match the domain's lists.
	msg := oaSchemaProps(doc, "Message")
	enum := func(v any) []string {
		var out []string
		m, _ := v.(map[string]any)
		list, _ := m["enum"].([]any)
		for _, e := range list {
			if e != nil {
				out = append(out, e.(string))
			}
		}
		return out
	}
	if got := enum(msg["origin"]); !slices.Equal(got, answerdesk.Origins) {
		t.Errorf("Message.origin enum %v, want %v", got, answerdesk.Origins)
	}
	if got := enum(msg["status"]); !slices.Equal(got, answerdesk.Statuses) {
		t.Errorf("Message.status enum %v, want %v", got, answerdesk.Statuses)
	}
	if got := enum(msg["non_message_type"]); !slices.Equal(got, answerdesk.NonMessageTypes) {
		t.Errorf("Message.non_message_type enum %v, want %v", got, answerdesk.NonMessageTypes)
	}
	if got := enum(create["origin"]); !slices.Equal(got, answerdesk.Origins) {
		t.Errorf("MessageCreate.origin enum %v, want %v", got, answerdesk.Origins)
	}
	for _, e := range []struct {
		schema, prop string
		want         []string
	}{
		{"ToDo", "delivery_type", answerdesk.DeliveryTypes},
		{"ToDoCreateRequest", "delivery_type", answerdesk.DeliveryTypes},
		{"LastDelivery", "status", []string{answerdesk.DeliverySent, answerdesk.DeliveryFailed, answerdesk.DeliverySkipped}},
		{"LastDelivery", "channel", []string{dispatch.ChannelSMTP, dispatch.ChannelTwilio, dispatch.ChannelOutbox}},
		{"ScheduleInput", "rule", []string{answerdesk.ScheduleImmediately, answerdesk.ScheduleToday}},
		{"ScheduleInput", "frequency", []string{answerdesk.FrequencyDaily, answerdesk.FrequencyWeekly, answerdesk.FrequencyMonthly}},
	} {
		if got := enum(oaSchemaProps(doc, e.schema)[e.prop]); !slices.Equal(got, e.want) {
			t.Errorf("%s.%s enum %v, want %v", e.schema, e.prop, got, e.want)
		}
	}
}

// toDoFieldErrors parses a To Do create body and returns its field errors by field.
func toDoFieldErrors(t *testing.T, body map[string]any) map[string][]string {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	_, err = answerdesk.ParseToDoCreate(b)
	if err == nil {
		return out
	}
	e, ok := err.(*answerdesk.Error)
	if !ok || e.Code != answerdesk.EINVALID {
		t.Fatalf("ParseToDoCreate(%s) = %v, want a validation error or nil", b, err)
	}
	for _, f := range e.Fields {
		out[f.Field] = append(out[f.Field], f.Message)
	}
	return out
}

// TestOpenAPIToDoCreateMatchesParser checks ToDoCreateRequest and ScheduleInput against what
// ParseToDoCreate reads: the properties, the per-channel required ones, and the limits.
func TestOpenAPIToDoCreateMatchesParser(t *testing.T) {
	doc := loadOpenAPI(t)
	schemas := oaObj(oaObj(doc, "components"), "schemas")
	create := oaSchemaProps(doc, "ToDoCreateRequest")

	// The documented properties are the ones the parser reads: each string property set to
	// a number is reported on that field.
	strProps := []string{"account_number", "delivery_type", "name", "contact", "message_text", "instructions",
		"from", "from_email", "sender_name", "subject"}
	if got, want := oaKeys(create), slices.Sorted(slices.Values(append(slices.Clone(strProps), "schedule"))); !slices.Equal(got, want) {
		t.Errorf("ToDoCreateRequest properties %v, want %v", got, want)
	}
	for _, p := range strProps {
		if errs := toDoFieldErrors(t, map[string]any{p: 7}); !slices.Contains(errs[p], "must be a string") {
			t.Errorf("ParseToDoCreate does not type-check %q (errors %v); is it still a ToDoCreateRequest property?", p, errs)
		}
	}
	if req, _ := schemas["ToDoCreateRequest"].(map[string]any)["required"].([]any); !slices.Equal(req, []any{"account_number", "delivery_type", "schedule"}) {
		t.Errorf("ToDoCreateRequest required %v, want account_number, delivery_type, schedule", req)
	}

	// Every maxLength is the parser's limit (a call To Do, so the sms limit on message_text
	// does not apply).
	for _, p := range strProps {
		if _, ok := oaObj(create, p)["enum"]; ok {
			continue
		}
		mx, ok := oaObj(create, p)["maxLength"].(float64)
		if !ok {
			t.Errorf("ToDoCreateRequest.%s has no maxLength", p)
			continue
		}
		over := func(n int) bool {
			errs := toDoFieldErrors(t, map[string]any{"delivery_type": "call", p: strings.Repeat("a", n)})
			return slices.ContainsFunc(errs[p], func(m string) bool { return strings.HasPrefix(m, "must be at most") })
		}
		if over(int(mx)) || !over(int(mx)+1) {
			t.Errorf("ToDoCreateRequest.%s maxLength %v is not the parser's limit", p, mx)
		}
	}

	// allOf holds one if/then per delivery type whose required list is what the parser
	// demands for that type.
	documented := map[string][]string{}
	allOf, _ := schemas["ToDoCreateRequest"].(map[string]any)["allOf"].([]any)
	for _, c := range allOf {
		dt, _ := oaObj(oaObj(oaObj(c, "if"), "properties"), "delivery_type")["const"].(string)
		req, _ := oaObj(c, "then")["required"].([]any)
		for _, r := range req {
			documented[dt] = append(documented[dt], r.(string))
		}
		slices.Sort(documented[dt])
	}
	for _, dt := range answerdesk.DeliveryTypes {
		errs := toDoFieldErrors(t, map[string]any{"account_number": "1001", "delivery_type": dt, "schedule": map[string]any{"rule": "immediately"}})
		var want []string
		for f, msgs := range errs {
			if slices.Contains(msgs, "is required when delivery_type is "+dt) {
				want = append(want, f)
			}
		}
		slices.Sort(want)
		if !slices.Equal(documented[dt], want) {
			t.Errorf("ToDoCreateRequest allOf requires %v for delivery_type %s, the parser %v", documented[dt], dt, want)
		}
	}
	if got := slices.Sorted(maps.Keys(documented)); !slices.Equal(got, slices.Sorted(slices.Values(answerdesk.DeliveryTypes))) {
		t.Errorf("ToDoCreateRequest allOf covers delivery types %v, want %v", got, answerdesk.DeliveryTypes)
	}

	// Schedule limits: interval range and the number of times.
	sched := oaSchemaProps(doc, "ScheduleInput")
	if got := oaKeys(sched); !slices.Equal(got, []string{"days", "frequency", "interval", "rule", "times"}) {
		t.Errorf("ScheduleInput properties %v", got)
	}
	schedErrs := func(s map[string]any) map[string][]string {
		return toDoFieldErrors(t, map[string]any{"schedule": s})
	}
	daily := func(extra map[string]any) map[string]any {
		s := map[string]any{"frequency": "daily", "times": []string{"09:00"}}
		maps.Copy(s, extra)
		return s
	}
	interval := oaObj(sched, "interval")
	lo, _ := interval["minimum"].(float64)
	hi, _ := interval["maximum"].(float64)
	if len(schedErrs(daily(map[string]any{"interval": lo}))["schedule.interval"]) > 0 ||
		len(schedErrs(daily(map[string]any{"interval": hi}))["schedule.interval"]) > 0 ||
		len(schedErrs(daily(map[string]any{"interval": lo - 1}))["schedule.interval"]) == 0 ||
		len(schedErrs(daily(map[string]any{"interval": hi + 1}))["schedule.interval"]) == 0 {
		t.Errorf("ScheduleInput.interval minimum %v maximum %v is not the parser's range", lo, hi)
	}
	maxTimes, _ := oaObj(sched, "times")["maxItems"].(float64)
	times := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%02d:%02d", i%24, i/24)
		}
		return out
	}
	if len(schedErrs(daily(map[string]any{"times": times(int(maxTimes))}))["schedule.times"]) > 0 ||
		len(schedErrs(daily(map[string]any{"times": times(int(maxTimes) + 1)}))["schedule.times"]) == 0 {
		t.Errorf("ScheduleInput.times maxItems %v is not the parser's limit", maxTimes)
	}
	// days: weekday names for weekly, 1..31 for monthly, as the anyOf documents.
	var weekdays []string
	var monthMin, monthMax float64
	for _, alt := range oaObj(sched, "days")["anyOf"].([]any) {
		items := oaObj(alt, "items")
		switch items["type"] {
		case "string":
			for _, d := range items["enum"].([]any) {
				weekdays = append(weekdays, d.(string))
			}
		case "integer":
			monthMin, _ = items["minimum"].(float64)
			monthMax, _ = items["maximum"].(float64)
		}
	}
	if len(weekdays) != 7 {
		t.Errorf("ScheduleInput.days documents weekdays %v", weekdays)
	}
	weekly := map[string]any{"frequency": "weekly", "days": weekdays, "times": []string{"09:00"}}
	if errs := schedErrs(weekly)["schedule.days"]; len(errs) > 0 {
		t.Errorf("weekly days %v: %v", weekdays, errs)
	}
	for _, d := range []float64{monthMin, monthMax} {
		monthly := map[string]any{"frequency": "monthly", "days": []float64{d}, "times": []string{"09:00"}}
		if errs := schedErrs(monthly)["schedule.days"]; len(errs) > 0 {
			t.Errorf("monthly days [%v]: %v", d, errs)
		}
	}
	for _, d := range []float64{monthMin - 1, monthMax + 1} {
		monthly := map[string]any{"frequency": "monthly", "days": []float64{d}, "times": []string{"09:00"}}
		if errs := schedErrs(monthly)["schedule.days"]; len(errs) == 0 {
			t.Errorf("monthly days [%v] accepted, outside the documented %v..%v", d, monthMin, monthMax)
		}
	}

	// Every request example of createToDo parses without error.
	op := oaObj(oaObj(oaObj(doc, "paths"), "/api/v2/to-dos"), "post")
	examples := oaObj(oaObj(oaObj(oaObj(op, "requestBody"), "content"), "application/json"), "examples")
	if len(examples) == 0 {
		t.Error("createToDo has no request examples")
	}
	for name, ex := range examples {
		v, _ := ex.(map[string]any)["value"].(map[string]any)
		if errs := toDoFieldErrors(t, v); len(errs) > 0 {
			t.Errorf("createToDo example %s does not parse: %v", name, errs)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	srv := httptest.NewServer((&Server{Logger: slog.New(slog.DiscardHandler)}).Handler())
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v2/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	want, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("served document (%d bytes) differs from %s (%d bytes)", len(body), openAPIFile, len(want))
	}

	// No credentials needed, and other methods are the API's 405.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v2/openapi.json", nil)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/v2/openapi.json: status %d, want 405", resp2.StatusCode)
	}
}
