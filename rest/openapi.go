package rest

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/schema"
	"github.com/answerdesk/answerdesk/public"
)

// The OpenAPI documents are assembled once, at start, from two parts:
//
//   - openapi/vN.json, the hand-written part: info, servers, tags, paths, parameters,
//     responses, headers (no schemas: every one comes from a Go type);
//   - the component schemas of the Go types the handlers encode and of the request types
//     the domain parses bodies into (vNComponents), made by the reflection the MCP output
//     schemas come from (internal/schema): properties, their JSON types, nullability,
//     required-ness and the fields' descriptions (jsonschema tags), with the domain's
//     enumerations (vNEnums; v2AnyCase for those the parsers match in any case), limits and
//     conditions (v2Limits; "Schema." for keywords of a whole schema, such as the
//     properties each delivery type requires). So a field added to a type is documented
//     without editing JSON. A request type's optional property may be null, as the parsers
//     take null for absent, and a property tagged refused:"true" admits no value.
//
// What a Go type cannot say (a format, an enumeration, a pattern, examples, a description
// where the field has no jsonschema tag, the sandbox marker) is in openapi/vN.schemas.json,
// merged over the generated schema; it never repeats what the type says
// (TestOpenAPISchemaExtrasAreExtra).

// component is a schema of the document generated from a Go type.
type component struct {
	name string
	typ  reflect.Type
}

// request reports whether c is the schema of a request body (or of a part of one): the
// components named ...Request, and those the request bodies refer to.
func (c component) request() bool {
	return strings.HasSuffix(c.name, "Request") || slices.Contains([]string{"MessageCreate", "ScheduleInput", "DeliveryMethodInput"}, c.name)
}

// v1Components are the public API's schemas that its handlers' types encode.
var v1Components = []component{
	{"Company", reflect.TypeFor[public.Company]()},
	{"MailingAddress", reflect.TypeFor[public.Address]()},
	{"SocialProfile", reflect.TypeFor[public.SocialProfile]()},
	{"CompanyLinks", reflect.TypeFor[public.Links]()},
	{"ServiceList", reflect.TypeFor[public.Services]()},
	{"Service", reflect.TypeFor[public.Service]()},
	{"Pricing", reflect.TypeFor[public.Pricing]()},
	{"ServicePlans", reflect.TypeFor[public.ServicePlans]()},
	{"Plan", reflect.TypeFor[public.Plan]()},
	{"SearchResults", reflect.TypeFor[public.Search]()},
	{"SearchResult", reflect.TypeFor[public.Result]()},
	{"BatchOperation", reflect.TypeFor[answerdesk.BatchRequest]()},
	{"BatchOperationResult", reflect.TypeFor[answerdesk.BatchResponse]()},
	{"Error", reflect.TypeFor[ErrorObject]()},
	{"FieldError", reflect.TypeFor[answerdesk.FieldError]()},
}

// v2Components are the customer API's schemas that its handlers' types encode.
var v2Components = []component{
	{"Message", reflect.TypeFor[answerdesk.Message]()},
	{"CallRecording", reflect.TypeFor[answerdesk.CallRecording]()},
	{"CDR", reflect.TypeFor[answerdesk.CDR]()},
	{"ToDo", reflect.TypeFor[answerdesk.ToDo]()},
	{"ToDoSchedule", reflect.TypeFor[answerdesk.ToDoSchedule]()},
	{"LastDelivery", reflect.TypeFor[answerdesk.LastDelivery]()},
	{"ToDoDelivery", reflect.TypeFor[answerdesk.ToDoDelivery]()},
	{"ToDoAttempt", reflect.TypeFor[answerdesk.ToDoAttempt]()},
	{"OnCallContact", reflect.TypeFor[answerdesk.OnCallContact]()},
	{"DeliveryMethod", reflect.TypeFor[answerdesk.DeliveryMethod]()},
	{"BasicAuthView", reflect.TypeFor[answerdesk.BasicAuthView]()},
	{"PayloadField", reflect.TypeFor[answerdesk.PayloadField]()},
	{"DispatchDelivery", reflect.TypeFor[answerdesk.DispatchDelivery]()},
	{"DispatchAttempt", reflect.TypeFor[answerdesk.DispatchAttempt]()},
	{"Account", reflect.TypeFor[answerdesk.Account]()},
	{"AccountDetail", reflect.TypeFor[answerdesk.AccountDetail]()},
	{"Me", reflect.TypeFor[answerdesk.Me]()},
	{"User", reflect.TypeFor[answerdesk.UserDetail]()},
	{"SMSNumber", reflect.TypeFor[answerdesk.SMSNumber]()},
	{"SendingDomain", reflect.TypeFor[answerdesk.SendingDomain]()},
	{"BlacklistEntry", reflect.TypeFor[answerdesk.BlacklistEntry]()},
	{"PageMeta", reflect.TypeFor[answerdesk.PageMeta]()},
	{"Error", reflect.TypeFor[ErrorObject]()},
	{"FieldError", reflect.TypeFor[answerdesk.FieldError]()},
	// The envelopes of the bodies.
	{"MessageList", reflect.TypeFor[schema.Page[answerdesk.Message]]()},
	{"RecentMessageList", reflect.TypeFor[schema.All[answerdesk.Message]]()},
	{"MessageResponse", reflect.TypeFor[schema.One[answerdesk.Message]]()},
	{"CallRecordingList", reflect.TypeFor[schema.Page[answerdesk.CallRecording]]()},
	{"CallRecordingResponse", reflect.TypeFor[schema.One[answerdesk.CallRecording]]()},
	{"ToDoList", reflect.TypeFor[schema.Page[answerdesk.ToDo]]()},
	{"ToDoResponse", reflect.TypeFor[schema.One[answerdesk.ToDo]]()},
	{"ToDoDeliveryList", reflect.TypeFor[schema.Page[answerdesk.ToDoDelivery]]()},
	{"OnCallContactList", reflect.TypeFor[schema.Page[answerdesk.OnCallContact]]()},
	{"OnCallContactResponse", reflect.TypeFor[schema.One[answerdesk.OnCallContact]]()},
	{"DispatchDeliveryList", reflect.TypeFor[schema.Page[answerdesk.DispatchDelivery]]()},
	{"DispatchDeliveryResponse", reflect.TypeFor[schema.One[answerdesk.DispatchDelivery]]()},
	{"AccountList", reflect.TypeFor[schema.Page[answerdesk.AccountDetail]]()},
	{"AccountResponse", reflect.TypeFor[schema.One[answerdesk.AccountDetail]]()},
	{"MeResponse", reflect.TypeFor[schema.One[answerdesk.Me]]()},
	{"UserList", reflect.TypeFor[schema.Page[answerdesk.UserDetail]]()},
	{"UserResponse", reflect.TypeFor[schema.One[answerdesk.UserDetail]]()},
	{"SMSNumberResponse", reflect.TypeFor[schema.One[answerdesk.SMSNumber]]()},
	{"SendingDomainResponse", reflect.TypeFor[schema.One[answerdesk.SendingDomain]]()},
	{"BlacklistEntryResponse", reflect.TypeFor[schema.One[answerdesk.BlacklistEntry]]()},
	{"BlacklistEntryList", reflect.TypeFor[schema.Page[answerdesk.BlacklistEntry]]()},
	// The request bodies the domain parses.
	{"MessageCreateRequest", reflect.TypeFor[messageCreateBody]()},
	{"MessageCreate", reflect.TypeFor[answerdesk.MessageCreateRequest]()},
	{"ToDoCreateRequest", reflect.TypeFor[answerdesk.ToDoCreateRequest]()},
	{"ToDoUpdateRequest", reflect.TypeFor[answerdesk.ToDoUpdateRequest]()},
	{"ScheduleInput", reflect.TypeFor[answerdesk.ScheduleRequest]()},
	{"OnCallContactCreateRequest", reflect.TypeFor[answerdesk.OnCallContactCreateRequest]()},
	{"DeliveryMethodInput", reflect.TypeFor[answerdesk.DeliveryMethodRequest]()},
	{"AccountCreateRequest", reflect.TypeFor[answerdesk.AccountCreate]()},
	{"AccountUpdateRequest", reflect.TypeFor[answerdesk.AccountUpdate]()},
	{"SMSNumberRequest", reflect.TypeFor[smsNumberBody]()},
	{"SendingDomainRequest", reflect.TypeFor[sendingDomainBody]()},
	{"BlacklistRequest", reflect.TypeFor[blacklistBody]()},
	{"UserCreateRequest", reflect.TypeFor[answerdesk.UserCreate]()},
	{"UserUpdateRequest", reflect.TypeFor[answerdesk.UserUpdate]()},
	{"RecordingIngestRequest", reflect.TypeFor[answerdesk.RecordingIngestRequest]()},
}

// v2Enums are the enumerations of v2Components' properties that the domain lists.
var v2Enums = map[string][]string{
	"Message.status":           answerdesk.Statuses,
	"Message.origin":           answerdesk.Origins,
	"Message.non_message_type": answerdesk.NonMessageTypes,
	"ToDo.delivery_type":       answerdesk.DeliveryTypes,
	"ToDo.state":               answerdesk.ToDoStates,
	"ToDoDelivery.status":      answerdesk.OccurrenceStatuses,

	// Matched exactly by the parsers (the ones they match in any case are v2AnyCase).
	"MessageCreate.non_message_type": answerdesk.NonMessageTypes,
	"DeliveryMethodInput.type":       {answerdesk.DeliveryMethodExternalAPI},
}

// v2AnyCase are the enumerations of request properties that the parsers match in any case
// and with spaces around (they trim and fold the case). JSON Schema has no case-insensitive
// enum, and an enum would refuse "SMS", which the server takes; so these are documented by
// a pattern that matches exactly what the server accepts, with the canonical values as the
// examples (the descriptions say "matched case-insensitively").
var v2AnyCase = map[string][]string{
	"MessageCreate.origin":             answerdesk.Origins,
	"ToDoCreateRequest.delivery_type":  answerdesk.DeliveryTypes,
	"ScheduleInput.rule":               {answerdesk.ScheduleImmediately, answerdesk.ScheduleToday},
	"ScheduleInput.frequency":          {answerdesk.FrequencyDaily, answerdesk.FrequencyWeekly, answerdesk.FrequencyMonthly},
	"DeliveryMethodInput.payload_type": {answerdesk.PayloadJSON, answerdesk.PayloadForm},
}

// anyCasePattern is the pattern of a string that is one of values in any case, with white
// space around: ^\s*(?:[Ss][Mm][Ss]|...)\s*$, in the syntax both ECMA-262 and Go's regexp
// read.
func anyCasePattern(values []string) string {
	return `^\s*` + foldPattern(values) + `\s*$`
}

// foldPattern is the group matching one of values in any case: (?:[Ss][Mm][Ss]|...).
func foldPattern(values []string) string {
	alts := make([]string, len(values))
	for i, v := range values {
		var b strings.Builder
		for _, r := range v {
			if lo, up := unicode.ToLower(r), unicode.ToUpper(r); lo != up {
				fmt.Fprintf(&b, "[%c%c]", up, lo)
			} else {
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		alts[i] = b.String()
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// requiredWhen is the condition of each delivery type on a To Do create body: when
// delivery_type is that type (in any case), its required properties must be non-blank
// strings (the parser treats null, like a blank string, as missing).
func requiredWhen() []any {
	var all []any
	for _, dt := range answerdesk.DeliveryTypes {
		required := answerdesk.RequiredByDeliveryType[dt]
		props := map[string]any{}
		for _, p := range required {
			props[p] = map[string]any{"type": "string", "pattern": `\S`}
		}
		all = append(all, map[string]any{
			"if": map[string]any{
				"properties": map[string]any{"delivery_type": map[string]any{"type": "string", "pattern": anyCasePattern([]string{dt})}},
				"required":   []string{"delivery_type"},
			},
			"then": map[string]any{"required": required, "properties": props},
		})
	}
	return all
}

// scheduleRules are the conditions of a schedule object, as scheduleInput checks them:
// with a rule, none of the recurring properties; immediately without times, the others
// with at least one; without a rule (or with null), a frequency, whose days are weekday
// names (weekly), days of the month (monthly) or none (daily); never both until and count.
// (A time of a today schedule already past is a 422 no schema can tell.)
func scheduleRules() []any {
	type obj = map[string]any
	str := func(values ...string) obj { return obj{"type": "string", "pattern": anyCasePattern(values)} }
	null := obj{"type": "null"}
	notNull := obj{"not": null}
	recurring := obj{"properties": obj{"rule": null}}
	recurringOnly := obj{}
	for _, p := range []string{"frequency", "interval", "days", "until", "count", "skip_dates"} {
		recurringOnly[p] = null
	}
	frequency := func(f string, days obj) obj {
		return obj{
			"if":   obj{"properties": obj{"rule": null, "frequency": str(f)}, "required": []string{"frequency"}},
			"then": obj{"properties": obj{"days": days}, "required": []string{"days"}},
		}
	}
	return []any{
		obj{"if": obj{"properties": obj{"rule": obj{"type": "string"}}, "required": []string{"rule"}}, "then": obj{"properties": recurringOnly}},
		obj{
			"if":   obj{"properties": obj{"rule": str(answerdesk.ScheduleImmediately)}, "required": []string{"rule"}},
			"then": obj{"properties": obj{"times": obj{"maxItems": 0}}},
			"else": obj{"properties": obj{"times": obj{"type": "array", "minItems": 1}}, "required": []string{"times"}},
		},
		obj{"if": recurring, "then": obj{"properties": obj{"frequency": obj{"type": "string"}}, "required": []string{"frequency"}}},
		frequency(answerdesk.FrequencyWeekly, obj{"type": "array", "minItems": 1, "items": obj{"type": "string"}}),
		frequency(answerdesk.FrequencyMonthly, obj{"type": "array", "minItems": 1, "items": obj{"type": "integer"}}),
		obj{
			"if":   obj{"properties": obj{"rule": null, "frequency": str(answerdesk.FrequencyDaily)}, "required": []string{"frequency"}},
			"then": obj{"properties": obj{"days": obj{"maxItems": 0}}},
		},
		obj{"not": obj{"properties": obj{"until": notNull, "count": notNull}, "required": []string{"until", "count"}}},
	}
}

// v2Limits are the keywords of v2Components' properties that state the domain's limits,
// from the constants its parsers check with.
var v2Limits = func() map[string]map[string]any {
	toDo := map[string]int{"name": answerdesk.MaxToDoNameLength, "contact": answerdesk.MaxAddressLength,
		"message_text": answerdesk.MaxEmailBodyLength, "instructions": answerdesk.MaxInstructionsLength,
		"from": answerdesk.MaxPhoneLength, "from_email": answerdesk.MaxAddressLength,
		"sender_name": answerdesk.MaxSenderNameLength, "subject": answerdesk.MaxSubjectLength}
	limits := map[string]map[string]any{
		"MessageCreate.content":                             {"maxLength": answerdesk.MaxContentLength},
		"MessageCreate.account_number":                      {"maxLength": answerdesk.MaxAccountNumberLength},
		"MessageCreate.answers":                             {"maxProperties": answerdesk.MaxAnswers},
		"ToDoCreateRequest.account_number":                  {"maxLength": answerdesk.MaxAccountNumberLength},
		"ScheduleInput.times":                               {"maxItems": answerdesk.MaxScheduleTimes},
		"ScheduleInput.interval":                            {"minimum": 1, "maximum": answerdesk.MaxScheduleInterval},
		"ScheduleInput.count":                               {"minimum": 1, "maximum": answerdesk.MaxScheduleCount},
		"ScheduleInput.skip_dates":                          {"maxItems": answerdesk.MaxSkipDates},
		"OnCallContactCreateRequest.name":                   {"maxLength": answerdesk.MaxContactNameLength},
		"OnCallContactCreateRequest.escalation_level":       {"minimum": 1, "maximum": answerdesk.MaxEscalationLevel, "default": 1},
		"OnCallContactCreateRequest.escalate_after_minutes": {"minimum": 1, "maximum": answerdesk.MaxEscalateAfterMinutes, "default": answerdesk.DefaultEscalateAfterMinutes},
		"OnCallContactCreateRequest.delivery_methods":       {"minItems": 1, "maxItems": answerdesk.MaxDeliveryMethodsPerContact},
		"DeliveryMethodInput.url":                           {"maxLength": answerdesk.MaxURLLength},
		"DeliveryMethodInput.data":                          {"minItems": 1, "maxItems": answerdesk.MaxPayloadFields},
		"AccountCreateRequest.name":                         {"maxLength": answerdesk.MaxAccountNameLength},
		"AccountUpdateRequest.name":                         {"maxLength": answerdesk.MaxAccountNameLength},
		// "" is no password, as when left out.
		"UserCreateRequest.password": {"maxLength": answerdesk.MaxPasswordLength,
			"anyOf": []any{map[string]any{"const": ""}, map[string]any{"minLength": answerdesk.MinPasswordLength}}},
		"DeliveryMethodInput.headers": {"maxProperties": answerdesk.MaxHeaders, "propertyNames": map[string]any{"maxLength": answerdesk.MaxHeaderNameLength},
			"additionalProperties": map[string]any{"maxLength": answerdesk.MaxHeaderValueLength}},
	}
	for _, name := range answerdesk.MessageStringFields() {
		if v2Enums["MessageCreate."+name] == nil { // an enumeration says more than a length
			limits["MessageCreate."+name] = map[string]any{"maxLength": answerdesk.MaxStringLength}
		}
	}
	for at, values := range v2AnyCase {
		if limits[at] == nil {
			limits[at] = map[string]any{}
		}
		// The enumeration for readers and client generators, what the server takes (any
		// case, spaces around) for validators.
		limits[at] = mergeSchema(limits[at], map[string]any{"anyOf": []any{
			map[string]any{"enum": values},
			map[string]any{"pattern": anyCasePattern(values)},
		}})
	}
	limits["ToDoCreateRequest."] = map[string]any{"allOf": requiredWhen()}
	limits["ScheduleInput."] = map[string]any{"allOf": scheduleRules()}
	for name, max := range toDo {
		limits["ToDoCreateRequest."+name] = map[string]any{"maxLength": max}
		limits["ToDoUpdateRequest."+name] = map[string]any{"maxLength": max}
	}
	return limits
}()

// v1Ops are the declarations of v1Operations.
func v1Ops() []operation {
	ops := make([]operation, len(v1Operations))
	for i, op := range v1Operations {
		ops[i] = op.operation
	}
	return ops
}

// v1Enums are the enumerations of v1Components' properties ("Schema.property") that the
// domain lists, so that the document lists what the code accepts and produces.
var v1Enums = map[string][]string{
	"SearchResult.type":    answerdesk.PageTypes,
	"Pricing.billingCycle": public.BillingCycles,
}

var (
	//go:embed openapi/v1.json
	openAPIV1Base []byte
	//go:embed openapi/v1.schemas.json
	openAPIV1Extras []byte
	//go:embed openapi/v2.json
	openAPIV2Base []byte
	//go:embed openapi/v2.schemas.json
	openAPIV2Extras []byte
)

// openAPIV2 is the OpenAPI 3.1 document of the customer API v2, as served, and
// openAPIV2ETag its entity tag (made in init, as openAPIV1's).
var (
	openAPIV2     []byte
	openAPIV2ETag string
)

// openAPIV1 is the OpenAPI 3.1 document of the public API v1 (and its sandbox), as served,
// and openAPIV1ETag its entity tag, made like the public API's other ETags. They are made
// in init: the declarations they describe include the handler that serves them.
var (
	openAPIV1     []byte
	openAPIV1ETag string
)

func init() {
	openAPIV1 = mustDocument(openAPIV1Base, openAPIV1Extras, v1Components, v1Enums, nil, v1Ops(), "")
	openAPIV1ETag = etagOf(openAPIV1)
	openAPIV2 = mustDocument(openAPIV2Base, openAPIV2Extras, v2Components, v2Enums, v2Limits, v2Ops(), "/api/v2")
	openAPIV2ETag = etagOf(openAPIV2)
}

// mustDocument is buildDocument for the embedded documents, whose failure is a programming
// error that every test of the package reports.
func mustDocument(base, extras []byte, comps []component, enums map[string][]string, limits map[string]map[string]any, ops []operation, prefix string) []byte {
	doc, err := buildDocument(base, extras, comps, enums, limits, ops, prefix)
	if err != nil {
		panic(err)
	}
	return doc
}

// topKeys is the order of an OpenAPI document's top-level fields, as the specification
// lists them, so that the served document reads from info to components.
var topKeys = []string{"openapi", "info", "jsonSchemaDialect", "servers", "security", "tags", "externalDocs", "paths", "webhooks", "components"}

// buildDocument assembles a document: base with the schemas of comps generated, their
// enumerations and limits set, and extras merged over them; with ops, the paths of those
// operations from their declarations (operationPaths).
func buildDocument(base, extras []byte, comps []component, enums map[string][]string, limits map[string]map[string]any, ops []operation, prefix string) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("openapi base: %w", err)
	}
	var components map[string]json.RawMessage
	if err := json.Unmarshal(doc["components"], &components); err != nil {
		return nil, fmt.Errorf("openapi base components: %w", err)
	}
	if ops != nil {
		var params map[string]map[string]any
		if raw := components["parameters"]; raw != nil {
			if err := json.Unmarshal(raw, &params); err != nil {
				return nil, fmt.Errorf("openapi base parameters: %w", err)
			}
		}
		paths, err := operationPaths(doc["paths"], params, ops, prefix)
		if err != nil {
			return nil, err
		}
		doc["paths"] = paths
		if declaresShared(ops) { // else the base's, in its order
			if components["parameters"], err = json.Marshal(params); err != nil {
				return nil, fmt.Errorf("openapi parameters: %w", err)
			}
		}
	}
	schemas := map[string]any{}
	if raw := components["schemas"]; raw != nil {
		if err := json.Unmarshal(raw, &schemas); err != nil {
			return nil, fmt.Errorf("openapi base schemas: %w", err)
		}
	}
	var extra map[string]map[string]any
	if err := json.Unmarshal(extras, &extra); err != nil {
		return nil, fmt.Errorf("openapi schema extras: %w", err)
	}
	refs := make(map[reflect.Type]string, len(comps))
	for _, c := range comps {
		refs[c.typ] = "#/components/schemas/" + c.name
	}
	rules := map[string]map[string]any{} // "Schema.property" → keywords
	for at, values := range enums {
		rules[at] = map[string]any{"enum": values}
	}
	for at, keywords := range limits {
		if rules[at] == nil {
			rules[at] = map[string]any{}
		}
		rules[at] = mergeSchema(rules[at], keywords)
	}
	for _, c := range comps {
		if _, dup := schemas[c.name]; dup {
			return nil, fmt.Errorf("openapi: schema %s is both generated and written in the base", c.name)
		}
		s, err := componentSchema(c.typ, refs, c.request())
		if err != nil {
			return nil, err
		}
		if err := setRules(c, s, rules); err != nil {
			return nil, err
		}
		schemas[c.name] = mergeSchema(s, extra[c.name])
		delete(extra, c.name)
	}
	for name := range extra {
		return nil, fmt.Errorf("openapi: extras for %s, which no Go type generates", name)
	}
	var err error
	if components["schemas"], err = json.Marshal(schemas); err != nil {
		return nil, fmt.Errorf("openapi schemas: %w", err)
	}
	if doc["components"], err = json.Marshal(components); err != nil {
		return nil, fmt.Errorf("openapi components: %w", err)
	}
	// The top-level fields in the specification's order, each indented.
	var b bytes.Buffer
	b.WriteString("{")
	n := 0
	for _, k := range topKeys {
		v, ok := doc[k]
		if !ok {
			continue
		}
		delete(doc, k)
		if n > 0 {
			b.WriteString(",")
		}
		n++
		var ind bytes.Buffer
		if err := json.Indent(&ind, v, "  ", "  "); err != nil {
			return nil, fmt.Errorf("openapi %s: %w", k, err)
		}
		fmt.Fprintf(&b, "\n  %q: %s", k, ind.Bytes())
	}
	for k := range doc {
		return nil, fmt.Errorf("openapi: unknown top-level field %q", k)
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// setRules merges into s, the schema of component c, the keywords rules gives its
// properties ("Schema.property"): the domain's enumerations and limits. A nullable
// property's enumeration includes null.
func setRules(c component, s map[string]any, rules map[string]map[string]any) error {
	props, _ := s["properties"].(map[string]any)
	for at, keywords := range rules {
		name, prop, _ := strings.Cut(at, ".")
		if name != c.name {
			continue
		}
		p, ok := props[prop].(map[string]any)
		if prop == "" { // "Schema.": keywords of the schema itself
			p, ok = s, true
		}
		if !ok {
			return fmt.Errorf("openapi: enumeration or limits of %s, which %v does not have", at, c.typ)
		}
		var kw map[string]any // a copy as JSON values: the extras are merged into it next
		if raw, err := json.Marshal(keywords); err != nil || json.Unmarshal(raw, &kw) != nil {
			return fmt.Errorf("openapi: rules of %s: %v", at, keywords)
		}
		if enum, ok := kw["enum"].([]any); ok {
			if ts, _ := p["type"].([]any); slices.Contains(ts, any("null")) {
				kw["enum"] = append(enum, nil) // a nullable property's null is one of its values
			}
		}
		if prop != "" {
			props[prop] = mergeSchema(p, kw)
		} else {
			mergeSchema(s, kw)
		}
	}
	return nil
}

// declaresShared reports whether an operation of ops takes a shared query parameter.
func declaresShared(ops []operation) bool {
	return slices.ContainsFunc(ops, func(op operation) bool {
		return slices.ContainsFunc(op.query, func(q queryParam) bool { return q.shared != "" })
	})
}

// componentSchema is the schema of t as a generic JSON value, the other components referred
// to by $ref. Lists are never null in the API's bodies; nullable types are written
// ["T", "null"].
// request says whether t is a request body's type.
func componentSchema(t reflect.Type, refs map[reflect.Type]string, request bool) (map[string]any, error) {
	s, err := schema.Of(t, refs)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	schema.NonNullArrays(s)
	schema.NonNullItems(s)
	schema.OmittedNotNull(t, s)
	schema.Int64Format(t, s)
	schema.OptionalNull(t, s) // after NonNullArrays: a request may give null for a list
	if request {
		schema.PlainOptionalNull(t, s) // after OmittedNotNull, for the same reason
	}
	schema.Refused(t, s)
	schema.NullLast(s)
	// A response may gain properties within a version; the documents have always let clients
	// expect that, so the generated "no other properties" is not published.
	schema.Walk(s, func(s *jsonschema.Schema) {
		if a := s.AdditionalProperties; a != nil && a.Not != nil && reflect.ValueOf(*a.Not).IsZero() {
			s.AdditionalProperties = nil
		}
	})
	s.PropertyOrder = nil
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("openapi: schema of %v: %w", t, err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("openapi: schema of %v: %w", t, err)
	}
	return out, nil
}

// mergeSchema merges extra over s: objects key by key (properties property by property),
// anything else replaced.
func mergeSchema(s, extra map[string]any) map[string]any {
	for k, v := range extra {
		sub, isObj := v.(map[string]any)
		have, hasObj := s[k].(map[string]any)
		if isObj && hasObj {
			s[k] = mergeSchema(have, sub)
			continue
		}
		s[k] = v
	}
	return s
}

// OpenAPIV2 is the customer API's OpenAPI document, as GET /api/v2/openapi.json serves it:
// the account MCP server reads its tools' arguments from it.
func OpenAPIV2() []byte { return openAPIV2 }

// serveOpenAPIV2 serves the customer API's OpenAPI document (GET /api/v2/openapi.json), as
// serveOpenAPIV1 does the public API's: code generators and API clients poll it, and a
// 304 to a matching If-None-Match spares them the 100 KB.
func serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	writeBody(w, r, openAPIV2, openAPIV2ETag)
}

// etagOf is the strong entity tag of a response body.
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// serveOpenAPIV1 serves the public API's OpenAPI document (GET /api/v1/openapi.json): no
// credentials, cacheable like every public read (ETag, Cache-Control), and 304 to a
// matching If-None-Match.
func serveOpenAPIV1(w http.ResponseWriter, r *http.Request) {
	writeBody(w, r, openAPIV1, openAPIV1ETag)
}

// etagMatches reports whether an If-None-Match header names etag (weakly compared) or is *.
func etagMatches(ifNoneMatch, etag string) bool {
	for _, m := range strings.Split(ifNoneMatch, ",") {
		m = strings.TrimSpace(m)
		if m == etag || m == "W/"+etag || m == "*" {
			return true
		}
	}
	return false
}
