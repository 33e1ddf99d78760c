package rest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/go-chi/chi/v5"
)

// These tests keep rest/openapi/v2.json honest: every /api/v2 route of the router is
// documented and nothing else is, the document is structurally sound, its schemas name the
// same properties as the Go types the handlers encode, and it is served byte for byte.

const openAPIFile = "openapi/v2.json"

// loadOpenAPI parses the document on disk (the same bytes the binary embeds).
func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	return oaLoad(t, openAPIV2)
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

// TestOpenAPIIsValid checks the structure of the document (see checkOpenAPIStructure): full
// paths under /api/v2, bearer authentication inherited by every operation but the
// document's own, and every response other than 200 an error.
func TestOpenAPIIsValid(t *testing.T) {
	checkOpenAPIStructure(t, loadOpenAPI(t), oaStructureOptions{
		pathPrefix:   "/api/v2/",
		bearerScheme: "bearerAuth",
		specPath:     "/api/v2/openapi.json",
		successCodes: []string{"200"},
	})
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
		"ToDoDelivery":  reflect.TypeFor[answerdesk.ToDoDelivery](),
		"ToDoAttempt":   reflect.TypeFor[answerdesk.ToDoAttempt](),

		"OnCallContact":    reflect.TypeFor[answerdesk.OnCallContact](),
		"DeliveryMethod":   reflect.TypeFor[answerdesk.DeliveryMethod](),
		"BasicAuthView":    reflect.TypeFor[answerdesk.BasicAuthView](),
		"PayloadField":     reflect.TypeFor[answerdesk.PayloadField](),
		"DispatchDelivery": reflect.TypeFor[answerdesk.DispatchDelivery](),
		"DispatchAttempt":  reflect.TypeFor[answerdesk.DispatchAttempt](),

		"Account":       reflect.TypeFor[answerdesk.Account](),
		"AccountDetail": reflect.TypeFor[answerdesk.AccountDetail](),
		"Me":            reflect.TypeFor[answerdesk.Me](),

		"User":           reflect.TypeFor[answerdesk.UserDetail](),
		"BlacklistEntry": reflect.TypeFor[answerdesk.BlacklistEntry](),
	} {
		props := oaSchemaProps(doc, name)
		if props == nil {
			t.Errorf("components.schemas.%s is missing", name)
			continue
		}
		oaMatchProps(t, name, props, typ)
	}
	// Types without omitempty always encode every property: the schema requires them all.
	for _, name := range []string{"Message", "CallRecording", "CDR", "ToDo", "ToDoSchedule", "LastDelivery", "ToDoDelivery", "ToDoAttempt",
		"OnCallContact", "DeliveryMethod", "BasicAuthView", "PayloadField", "DispatchDelivery", "DispatchAttempt",
		"Account", "AccountDetail", "Me", "User", "BlacklistEntry"} {
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
		if p := oaQueryParam(t, doc, path, name); p != nil {
			return oaDeref(doc, p["schema"])
		}
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
		{"/api/v2/to-dos/{id}/deliveries", "page_size", answerdesk.DefaultToDoDeliveryPageSize, 1, answerdesk.MaxToDoDeliveryPageSize},
		{"/api/v2/to-dos/{id}/deliveries", "page", 1, 1, 1_000_000},
		{"/api/v2/on-call-contacts", "page_size", answerdesk.DefaultContactPageSize, 1, answerdesk.MaxContactPageSize},
		{"/api/v2/on-call-contacts", "page", 1, 1, 1_000_000},
		{"/api/v2/dispatch-deliveries", "page_size", deliveryPageSize(t, nil), 1, 200},
		{"/api/v2/dispatch-deliveries", "page", 1, 1, 1_000_000},
		{"/api/v2/accounts", "page_size", answerdesk.DefaultAccountPageSize, 1, answerdesk.MaxAccountPageSize},
		{"/api/v2/accounts", "page", 1, 1, 1_000_000},
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
		{"/api/v2/dispatch-deliveries", "message_id"}, {"/api/v2/dispatch-deliveries", "status"},
	} {
		param(p[0], p[1])
	}

	// Enumerations match the domain's lists.
	msg := oaSchemaProps(doc, "Message")
	enum := func(v any) []string { return oaEnum(t, v) }
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
		{"ToDo", "state", answerdesk.ToDoStates},
		{"ToDoDelivery", "status", answerdesk.OccurrenceStatuses},
		{"ToDoAttempt", "status", []string{answerdesk.DeliverySent, answerdesk.DeliveryFailed, answerdesk.DeliverySkipped}},
		{"LastDelivery", "status", []string{answerdesk.DeliverySent, answerdesk.DeliveryFailed, answerdesk.DeliverySkipped}},
		{"LastDelivery", "channel", []string{dispatch.ChannelSMTP, dispatch.ChannelTwilio, dispatch.ChannelOutbox}},
		{"ScheduleInput", "rule", []string{answerdesk.ScheduleImmediately, answerdesk.ScheduleToday}},
		{"ScheduleInput", "frequency", []string{answerdesk.FrequencyDaily, answerdesk.FrequencyWeekly, answerdesk.FrequencyMonthly}},
		{"DeliveryMethod", "type", []string{answerdesk.DeliveryMethodExternalAPI}},
		{"DeliveryMethodInput", "type", []string{answerdesk.DeliveryMethodExternalAPI}},
		{"DeliveryMethod", "payload_type", []string{answerdesk.PayloadJSON, answerdesk.PayloadForm}},
		{"DeliveryMethodInput", "payload_type", []string{answerdesk.PayloadJSON, answerdesk.PayloadForm}},
		{"DispatchDelivery", "status", dispatchStatuses},
	} {
		if got := enum(oaSchemaProps(doc, e.schema)[e.prop]); !slices.Equal(got, e.want) {
			t.Errorf("%s.%s enum %v, want %v", e.schema, e.prop, got, e.want)
		}
	}
	if got := enum(param("/api/v2/to-dos", "state")); !slices.Equal(got, answerdesk.ToDoStates) {
		t.Errorf("GET /api/v2/to-dos state enum %v, want %v", got, answerdesk.ToDoStates)
	}
	if got := enum(param("/api/v2/dispatch-deliveries", "status")); !slices.Equal(got, dispatchStatuses) {
		t.Errorf("GET /api/v2/dispatch-deliveries status enum %v, want %v", got, dispatchStatuses)
	}
}

var dispatchStatuses = []string{answerdesk.DispatchPending, answerdesk.DispatchDelivered, answerdesk.DispatchFailed}

// deliveryPageSize returns the page size DeliveryFilter.Validate settles on for page_size
// size (nil: absent), or 0 when it refuses it.
func deliveryPageSize(t *testing.T, size *int) float64 {
	t.Helper()
	q, err := answerdesk.DeliveryFilter{PageSize: size}.Validate()
	if err != nil {
		return 0
	}
	return float64(q.PageSize)
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

// oaEnum is a property's enumeration: its enum, or for a value matched in any case its
// examples, each of which (in upper and lower case, with spaces around) its pattern must
// match.
func oaEnum(t *testing.T, v any) []string {
	t.Helper()
	var out []string
	m, _ := v.(map[string]any)
	list, _ := m["enum"].([]any)
	// An enumeration matched in any case: anyOf [{enum}, {pattern}].
	if alts, ok := m["anyOf"].([]any); ok && list == nil && len(alts) == 2 {
		e, _ := alts[0].(map[string]any)
		p, _ := alts[1].(map[string]any)
		list, _ = e["enum"].([]any)
		pat, _ := p["pattern"].(string)
		re := regexp.MustCompile(pat)
		for _, e := range list {
			for _, s := range []string{e.(string), strings.ToUpper(e.(string)), " " + strings.ToLower(e.(string)) + " "} {
				if !re.MatchString(s) {
					t.Errorf("pattern %s does not match %q", pat, s)
				}
			}
		}
		if re.MatchString("x") || re.MatchString("") {
			t.Errorf("pattern %s matches a value outside the enumeration", pat)
		}
	}
	for _, e := range list {
		if e != nil {
			out = append(out, e.(string))
		}
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
		if _, ok := oaObj(create, p)["anyOf"]; ok && p == "delivery_type" { // an enumeration in any case
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
		pat, _ := oaObj(oaObj(oaObj(c, "if"), "properties"), "delivery_type")["pattern"].(string)
		var dt string
		for _, v := range answerdesk.DeliveryTypes {
			if regexp.MustCompile(pat).MatchString(strings.ToUpper(v)) {
				dt = v
			}
		}
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
	if got := oaKeys(sched); !slices.Equal(got, []string{"count", "days", "frequency", "interval", "rule", "skip_dates", "times", "until"}) {
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
	count := oaObj(sched, "count")
	clo, _ := count["minimum"].(float64)
	chi, _ := count["maximum"].(float64)
	if len(schedErrs(daily(map[string]any{"count": clo}))["schedule.count"]) > 0 ||
		len(schedErrs(daily(map[string]any{"count": chi}))["schedule.count"]) > 0 ||
		len(schedErrs(daily(map[string]any{"count": clo - 1}))["schedule.count"]) == 0 ||
		len(schedErrs(daily(map[string]any{"count": chi + 1}))["schedule.count"]) == 0 {
		t.Errorf("ScheduleInput.count minimum %v maximum %v is not the parser's range", clo, chi)
	}
	maxSkip, _ := oaObj(sched, "skip_dates")["maxItems"].(float64)
	skips := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = time.Date(2027, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		}
		return out
	}
	if len(schedErrs(daily(map[string]any{"skip_dates": skips(int(maxSkip))}))["schedule.skip_dates"]) > 0 ||
		len(schedErrs(daily(map[string]any{"skip_dates": skips(int(maxSkip) + 1)}))["schedule.skip_dates"]) == 0 {
		t.Errorf("ScheduleInput.skip_dates maxItems %v is not the parser's limit", maxSkip)
	}
	// days: weekday names for weekly, 1..31 for monthly, as the anyOf documents.
	var weekdays []string
	var monthMin, monthMax float64
	for _, alt := range oaObj(sched, "days")["anyOf"].([]any) {
		items := oaObj(alt, "items")
		switch items["type"] {
		case "string":
			weekdays = oaEnum(t, items)
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

// contactFieldErrors parses an on-call contact create body and returns its field errors by
// field, and the parsed request when it is valid.
func contactFieldErrors(t *testing.T, body any) (map[string][]string, *answerdesk.OnCallContactCreate) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	c, err := answerdesk.ParseOnCallContactCreate(b)
	if err == nil {
		return out, c
	}
	e, ok := err.(*answerdesk.Error)
	if !ok || e.Code != answerdesk.EINVALID {
		t.Fatalf("ParseOnCallContactCreate(%s) = %v, want a validation error or nil", b, err)
	}
	for _, f := range e.Fields {
		out[f.Field] = append(out[f.Field], f.Message)
	}
	return out, nil
}

// TestOpenAPIOnCallContactsMatchParser checks OnCallContactCreateRequest, DeliveryMethodInput
// and PayloadField against what ParseOnCallContactCreate reads and accepts, the write-only
// secrets, the examples, the merge variables the descriptions name, and the delivery filter.
func TestOpenAPIOnCallContactsMatchParser(t *testing.T) {
	doc := loadOpenAPI(t)
	schemas := oaObj(oaObj(doc, "components"), "schemas")
	create := oaSchemaProps(doc, "OnCallContactCreateRequest")
	input := oaSchemaProps(doc, "DeliveryMethodInput")
	field := oaSchemaProps(doc, "PayloadField")
	num := func(m map[string]any, k string) int { return oaNum(t, m, k) }
	required := func(name string) []string {
		var out []string
		req, _ := oaObj(schemas, name)["required"].([]any)
		for _, r := range req {
			out = append(out, r.(string))
		}
		slices.Sort(out)
		return out
	}
	// method returns a valid delivery method with extra properties set; contact wraps methods in
	// a valid body.
	method := func(extra map[string]any) map[string]any {
		m := map[string]any{"url": "https://hooks.example.com/in", "data": []any{map[string]any{"field": "text", "value": "{{message.content}}"}}}
		maps.Copy(m, extra)
		return m
	}
	contact := func(extra map[string]any, methods ...map[string]any) map[string]any {
		if len(methods) == 0 {
			methods = append(methods, method(nil))
		}
		b := map[string]any{"account_number": "1001", "name": "On call", "delivery_methods": methods}
		maps.Copy(b, extra)
		return b
	}
	valid := func(body any) bool {
		errs, _ := contactFieldErrors(t, body)
		return len(errs) == 0
	}

	// Properties and required ones: an empty body reports exactly the required properties,
	// and each documented property is type-checked.
	if got := oaKeys(create); !slices.Equal(got, []string{"account_number", "delivery_methods", "escalate_after_minutes", "escalation_level", "name"}) {
		t.Errorf("OnCallContactCreateRequest properties %v", got)
	}
	errs, _ := contactFieldErrors(t, map[string]any{})
	if got := slices.Sorted(maps.Keys(errs)); !slices.Equal(got, required("OnCallContactCreateRequest")) {
		t.Errorf("OnCallContactCreateRequest required %v, the parser requires %v", required("OnCallContactCreateRequest"), got)
	}
	for p, wrong := range map[string]any{"account_number": 7, "name": 7, "escalation_level": "x", "escalate_after_minutes": "x", "delivery_methods": "x"} {
		if errs, _ := contactFieldErrors(t, map[string]any{p: wrong}); len(errs[p]) == 0 {
			t.Errorf("ParseOnCallContactCreate does not type-check %q (errors %v); is it still a property?", p, errs)
		}
	}
	if got := oaKeys(input); !slices.Equal(got, []string{"basic_auth", "data", "headers", "payload_type", "signing_secret", "type", "url"}) {
		t.Errorf("DeliveryMethodInput properties %v", got)
	}
	errs, _ = contactFieldErrors(t, contact(nil, map[string]any{}))
	var reqd []string
	for f := range errs {
		if p, ok := strings.CutPrefix(f, "delivery_methods[0]."); ok && slices.ContainsFunc(errs[f], func(m string) bool { return strings.HasPrefix(m, "is required") }) {
			reqd = append(reqd, p)
		}
	}
	slices.Sort(reqd)
	if !slices.Equal(reqd, required("DeliveryMethodInput")) {
		t.Errorf("DeliveryMethodInput required %v, the parser requires %v", required("DeliveryMethodInput"), reqd)
	}

	// Defaults.
	if _, c := contactFieldErrors(t, contact(nil)); c == nil {
		t.Fatal("the minimal contact does not parse")
	} else {
		if d := oaObj(create, "escalation_level")["default"]; d != float64(c.EscalationLevel) {
			t.Errorf("escalation_level default %v, the parser's %d", d, c.EscalationLevel)
		}
		if d := oaObj(create, "escalate_after_minutes")["default"]; d != float64(c.EscalateAfterMinutes) {
			t.Errorf("escalate_after_minutes default %v, the parser's %d", d, c.EscalateAfterMinutes)
		}
		if d := oaObj(input, "payload_type")["default"]; d != c.Methods[0].PayloadType {
			t.Errorf("payload_type default %v, the parser's %s", d, c.Methods[0].PayloadType)
		}
		if d := oaObj(input, "type")["default"]; d != c.Methods[0].Type {
			t.Errorf("type default %v, the parser's %s", d, c.Methods[0].Type)
		}
	}

	// Integer ranges.
	for _, p := range []string{"escalation_level", "escalate_after_minutes"} {
		lo, hi := num(oaObj(create, p), "minimum"), num(oaObj(create, p), "maximum")
		if !valid(contact(map[string]any{p: lo})) || !valid(contact(map[string]any{p: hi})) ||
			valid(contact(map[string]any{p: lo - 1})) || valid(contact(map[string]any{p: hi + 1})) {
			t.Errorf("OnCallContactCreateRequest.%s minimum %d maximum %d is not the parser's range", p, lo, hi)
		}
	}
	// Counts: delivery methods, data fields, headers.
	methods := func(n int) []map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = method(nil)
		}
		return out
	}
	withMethods := func(n int) map[string]any { return contact(map[string]any{"delivery_methods": methods(n)}) }
	dm := oaObj(create, "delivery_methods")
	if lo, hi := num(dm, "minItems"), num(dm, "maxItems"); valid(withMethods(lo-1)) || !valid(withMethods(lo)) ||
		!valid(withMethods(hi)) || valid(withMethods(hi+1)) {
		t.Errorf("delivery_methods minItems %d maxItems %d are not the parser's limits", lo, hi)
	}
	data := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"field": fmt.Sprint("f", i), "value": "v"}
		}
		return out
	}
	dd := oaObj(input, "data")
	if lo, hi := num(dd, "minItems"), num(dd, "maxItems"); valid(contact(nil, method(map[string]any{"data": data(lo - 1)}))) ||
		!valid(contact(nil, method(map[string]any{"data": data(lo)}))) || !valid(contact(nil, method(map[string]any{"data": data(hi)}))) ||
		valid(contact(nil, method(map[string]any{"data": data(hi + 1)}))) {
		t.Errorf("data minItems %d maxItems %d are not the parser's limits", lo, hi)
	}
	headers := func(n int) map[string]any { return oaNProps("X-H", n) }
	hd := oaObj(input, "headers")
	if hi := num(hd, "maxProperties"); !valid(contact(nil, method(map[string]any{"headers": headers(hi)}))) ||
		valid(contact(nil, method(map[string]any{"headers": headers(hi + 1)}))) {
		t.Errorf("headers maxProperties %d is not the parser's limit", hi)
	}
	// Lengths (ASCII, so characters and bytes agree).
	for _, l := range []struct {
		what   string
		schema map[string]any
		body   func(n int) map[string]any
	}{
		{"name", oaObj(create, "name"), func(n int) map[string]any { return contact(map[string]any{"name": strings.Repeat("a", n)}) }},
		{"url", oaObj(input, "url"), func(n int) map[string]any {
			return contact(nil, method(map[string]any{"url": "https://hooks.example.com/" + strings.Repeat("a", n-len("https://hooks.example.com/"))}))
		}},
		{"data[].field", oaObj(field, "field"), func(n int) map[string]any {
			return contact(nil, method(map[string]any{"data": []any{map[string]any{"field": strings.Repeat("a", n), "value": "v"}}}))
		}},
		{"data[].value", oaObj(field, "value"), func(n int) map[string]any {
			return contact(nil, method(map[string]any{"data": []any{map[string]any{"field": "f", "value": strings.Repeat("a", n)}}}))
		}},
		{"header name", oaObj(hd, "propertyNames"), func(n int) map[string]any {
			return contact(nil, method(map[string]any{"headers": map[string]any{strings.Repeat("a", n): "v"}}))
		}},
		{"header value", oaObj(hd, "additionalProperties"), func(n int) map[string]any {
			return contact(nil, method(map[string]any{"headers": map[string]any{"X-Api-Key": strings.Repeat("a", n)}}))
		}},
	} {
		if mx := num(l.schema, "maxLength"); !valid(l.body(mx)) || valid(l.body(mx+1)) {
			t.Errorf("%s maxLength %d is not the parser's limit", l.what, mx)
		}
	}

	// Payload types are accepted in any case; reserved header names are refused, others not.
	for _, pt := range []string{"JSON", "FORM", "json", "Form"} {
		if !valid(contact(nil, method(map[string]any{"payload_type": pt}))) {
			t.Errorf("payload_type %q refused", pt)
		}
	}
	if valid(contact(nil, method(map[string]any{"payload_type": "XML"}))) {
		t.Error(`payload_type "XML" accepted`)
	}
	names := regexp.MustCompile(oaObj(hd, "propertyNames")["pattern"].(string))
	notPat, _ := oaObj(oaObj(hd, "propertyNames"), "not")["pattern"].(string)
	if notPat == "" {
		t.Fatal("DeliveryMethodInput.headers.propertyNames refuses no reserved names")
	}
	reserved := regexp.MustCompile(notPat)
	desc, _ := hd["description"].(string)
	for _, name := range []string{"Host", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Idempotency-Key",
		"User-Agent", "TE", "Trailer", "Upgrade", "Expect", "Webhook-Id", "Webhook-Signature", "Proxy-Authorization"} {
		for _, n := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			if valid(contact(nil, method(map[string]any{"headers": map[string]any{n: "v"}}))) || !reserved.MatchString(n) {
				t.Errorf("reserved header %q is accepted by the parser, or not by the documented pattern %s", n, notPat)
			}
		}
		if !strings.Contains(desc, name) && !strings.HasPrefix(name, "Webhook-") && !strings.HasPrefix(name, "Proxy-") {
			t.Errorf("DeliveryMethodInput.headers description does not name reserved header %s", name)
		}
	}
	for _, n := range []string{"X-Api-Key", "Authorization", "Content-Type", "Hosts", "Webhook", "X-Host"} {
		if reserved.MatchString(n) {
			t.Errorf("header %q is refused by the documented pattern %s", n, notPat)
		}
	}
	for _, n := range []string{"X-Api-Key", "Authorization", "Content-Type", "Accept", "x_custom.1~"} {
		if !names.MatchString(n) || !valid(contact(nil, method(map[string]any{"headers": map[string]any{n: "v"}}))) {
			t.Errorf("header %q: documented pattern %v, or refused by the parser", n, names)
		}
	}
	for _, n := range []string{"Bad Name", "X:Y", "(x)"} {
		if names.MatchString(n) || valid(contact(nil, method(map[string]any{"headers": map[string]any{n: "v"}}))) {
			t.Errorf("header %q: matches the documented pattern, or accepted by the parser", n)
		}
	}

	// Basic auth: both or neither.
	for _, ba := range []map[string]any{{"username": "u"}, {"password": "p"}} {
		if valid(contact(nil, method(map[string]any{"basic_auth": ba}))) {
			t.Errorf("basic_auth %v accepted", ba)
		}
	}
	if !valid(contact(nil, method(map[string]any{"basic_auth": map[string]any{"username": "u", "password": "p"}}))) {
		t.Error("basic_auth with username and password refused")
	}

	// Signing secrets: whsec_ + base64 of the documented byte range; the schema's pattern
	// and length admit every valid one, and "" (no secret), which the parser takes as none.
	sec := oaObj(input, "signing_secret")
	secPattern := regexp.MustCompile(sec["pattern"].(string))
	secret := func(n int) string { return "whsec_" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xa5}, n)) }
	for n := 24; n <= 64; n++ {
		s := secret(n)
		if !valid(contact(nil, method(map[string]any{"signing_secret": s}))) {
			t.Errorf("signing secret of %d bytes refused", n)
		}
		if !secPattern.MatchString(s) || len(s) > num(sec, "maxLength") {
			t.Errorf("signing secret of %d bytes (%d characters) is outside the documented pattern or length", n, len(s))
		}
	}
	if !valid(contact(nil, method(map[string]any{"signing_secret": ""}))) || !secPattern.MatchString("") {
		t.Error(`signing secret "" (none) is refused by the parser or the pattern`)
	}
	for _, s := range []string{secret(23), "whsec_"} {
		if secPattern.MatchString(s) {
			t.Errorf("signing secret %q matches the documented pattern", s)
		}
	}
	for _, s := range []string{secret(23), secret(65), "whsec_not base64", base64.StdEncoding.EncodeToString(make([]byte, 32))} {
		if valid(contact(nil, method(map[string]any{"signing_secret": s}))) {
			t.Errorf("signing secret %q accepted", s)
		}
	}

	// Secrets are write-only in the request and absent from the responses.
	for at, s := range map[string]map[string]any{
		"basic_auth.password":  oaObj(oaObj(input, "basic_auth"), "properties")["password"].(map[string]any),
		"signing_secret":       sec,
		"headers (the values)": oaObj(hd, "additionalProperties"),
	} {
		if s["writeOnly"] != true {
			t.Errorf("DeliveryMethodInput.%s is not writeOnly: true", at)
		}
	}
	if got := oaKeys(oaSchemaProps(doc, "BasicAuthView")); !slices.Equal(got, []string{"username"}) {
		t.Errorf("BasicAuthView properties %v, want only username", got)
	}
	if v := oaObj(oaSchemaProps(doc, "DeliveryMethod"), "headers")["additionalProperties"].(map[string]any)["const"]; v != "[write-only]" {
		t.Errorf("DeliveryMethod.headers values const %v, want [write-only]", v)
	}

	// Every request example parses; the documented unknown-variable error is the parser's.
	paths := oaObj(doc, "paths")
	op := oaObj(oaObj(paths, "/api/v2/on-call-contacts"), "post")
	examples := oaObj(oaObj(oaObj(oaObj(op, "requestBody"), "content"), "application/json"), "examples")
	if len(examples) == 0 {
		t.Error("createOnCallContact has no request examples")
	}
	for name, ex := range examples {
		if errs, _ := contactFieldErrors(t, ex.(map[string]any)["value"]); len(errs) > 0 {
			t.Errorf("createOnCallContact example %s does not parse: %v", name, errs)
		}
	}
	for i, ex := range oaObj(schemas, "OnCallContactCreateRequest")["examples"].([]any) {
		if errs, _ := contactFieldErrors(t, ex); len(errs) > 0 {
			t.Errorf("OnCallContactCreateRequest example %d does not parse: %v", i, errs)
		}
	}
	unprocessable := oaObj(oaObj(oaObj(oaObj(doc, "components"), "responses"), "OnCallContactUnprocessable"), "content")
	ex := oaObj(oaObj(oaObj(unprocessable, "application/json"), "examples"), "halfBasicAuth")["value"].(map[string]any)
	fe := ex["errors"].([]any)[0].(map[string]any)
	errs, _ = contactFieldErrors(t, contact(nil, method(map[string]any{"basic_auth": map[string]any{"username": "acme"}})))
	if got := errs["delivery_methods[0].basic_auth"]; len(got) != 1 || got[0] != fe["message"] || fe["field"] != "delivery_methods[0].basic_auth" {
		t.Errorf("halfBasicAuth example %v, the parser reports %v", fe, errs)
	}

	// Every concrete merge variable the documentation names resolves (error examples aside).
	mergeVar := regexp.MustCompile(`\{\{([^{}]*)\}\}`)
	var text []string
	oaWalk(doc, "#", func(at string, v any) {
		if s, ok := v.(string); ok && strings.Contains(s, "{{") && !strings.HasPrefix(at, "#/components/responses/") {
			text = append(text, s)
		}
	})
	seen := 0
	for _, s := range text {
		for _, m := range mergeVar.FindAllString(s, -1) {
			if strings.ContainsAny(m, "<>") || m == "{{variable}}" {
				continue // a placeholder, not a variable
			}
			seen++
			if u := answerdesk.UnknownMergeVariables(m); u != nil {
				t.Errorf("the document names merge variable %s, which does not resolve", m)
			}
		}
	}
	if seen == 0 {
		t.Error("the document names no merge variables")
	}

	// Response examples decode into the Go types with exactly their properties.
	for name, typ := range map[string]reflect.Type{
		"OnCallContact":    reflect.TypeFor[answerdesk.OnCallContact](),
		"DispatchDelivery": reflect.TypeFor[answerdesk.DispatchDelivery](),
	} {
		list, _ := oaObj(schemas, name)["examples"].([]any)
		if len(list) == 0 {
			t.Errorf("schema %s has no examples", name)
		}
		for i, ex := range list {
			b, _ := json.Marshal(ex)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			v := reflect.New(typ).Interface()
			if err := dec.Decode(v); err != nil {
				t.Errorf("schema %s example %d does not decode into %s: %v", name, i, typ, err)
				continue
			}
			if got, want := oaKeys(ex.(map[string]any)), oaJSONNames(typ); !slices.Equal(got, want) {
				t.Errorf("schema %s example %d has properties %v, want %v", name, i, got, want)
			}
		}
	}

	// The delivery filter: the documented statuses are accepted, the page size limit is the
	// code's, and message_id is an integer id.
	for _, st := range dispatchStatuses {
		if _, err := (answerdesk.DeliveryFilter{Status: st}).Validate(); err != nil {
			t.Errorf("status %s refused: %v", st, err)
		}
	}
	if _, err := (answerdesk.DeliveryFilter{Status: "sending"}).Validate(); err == nil {
		t.Error("status sending accepted")
	}
	ps := oaObj(oaObj(oaObj(paths, "/api/v2/dispatch-deliveries"), "get")["parameters"].([]any)[3], "schema")
	mx := int(ps["maximum"].(float64))
	over := mx + 1
	if deliveryPageSize(t, &mx) != float64(mx) || deliveryPageSize(t, &over) != 0 {
		t.Errorf("dispatch-deliveries page_size maximum %d is not the code's limit", mx)
	}
	for id, ok := range map[string]bool{"1": true, "4182": true, "0": false, "-3": false, "x": false, "0b9f3c3e-6d0e-4d57-9d5c-2a1f0f5e7a10": false} {
		if _, err := (answerdesk.DeliveryFilter{MessageID: id}).Validate(); (err == nil) != ok {
			t.Errorf("message_id %q: error %v", id, err)
		}
	}

	// Replaying during an attempt is the documented 409, with the error code the router writes.
	replay := oaObj(oaObj(paths, "/api/v2/dispatch-deliveries/{id}/replay"), "post")
	if r := oaDeref(doc, oaObj(replay, "responses")["409"]); r == nil {
		t.Error("replayDispatchDelivery documents no 409")
	} else {
		example := oaObj(oaObj(oaObj(r, "content"), "application/json"), "example")
		status, code := errorStatus(answerdesk.ECONFLICT)
		if example["status"] != float64(status) || example["code"] != code || status != http.StatusConflict {
			t.Errorf("409 example %v, the router answers %d %s", example, status, code)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	srv := httptest.NewServer((&Server{Logger: slog.New(slog.DiscardHandler)}).Handler())
	defer srv.Close()

	oaCheckServedCached(t, func(header ...string) (*http.Response, []byte) {
		hdr := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			hdr.Set(header[i], header[i+1])
		}
		return oaFetch(t, http.MethodGet, srv.URL+"/api/v2/openapi.json", hdr)
	}, openAPIV2)

	// No credentials needed, and other methods are the API's 405.
	if resp, _ := oaFetch(t, http.MethodPost, srv.URL+"/api/v2/openapi.json", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /api/v2/openapi.json: status %d, want 405", resp.StatusCode)
	}
}
