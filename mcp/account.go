package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/schema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const accountInstructions = `This server works on the caller's answerdesk account: the messages the answering service took, the recordings of the calls, and To Dos (scheduled texts, emails and calls). Its tools are the customer API /api/v2: the same arguments (snake_case, as the API's query parameters and body fields), the same checks and the same JSON, {"data": ...} for one item and {"data": [...], "meta": {"page", "page_size", "total", "total_pages"}} for a page of a list.

Messages (scope messages:read to read, messages:write to change):
- list_messages: one page of messages, newest first, filtered by origin, status, start_date and end_date, read.
- get_recent_messages: the newest messages, without filters.
- get_message: one message by its integer id or its uuid.
- get_message_call_recording: the recording of a message's call (also needs recordings:read).
- create_message: take a new message on an account; it is delivered to the account's on-call contacts.
- acknowledge_message: mark a message acknowledged, which stops its escalation.
- mark_message_read, mark_message_unread: set a message's read flag.

Call recordings (scope recordings:read):
- list_call_recordings: one page, or a random sample, of call recordings with their call detail records.
- get_call_recording: one recording by id.

To Dos (scope todos:read to read, todos:write to create and change):
- list_to_dos: one page of To Dos, newest first, optionally only those in one state (active, paused, completed, cancelled).
- get_to_do: one To Do by id, with its state and its next five occurrences (schedule.upcoming).
- create_to_do: schedule an sms, email or call, now, today at given times, or recurring (optionally until a date, a number of times, skipping dates).
- update_to_do: change some fields of a To Do (not account_number or delivery_type); a new schedule replaces the old one.
- pause_to_do, resume_to_do: stop sending until resumed; resuming continues from the next occurrence after now (missed ones are not sent).
- cancel_to_do: stop a To Do for good (it stays readable).
- list_to_do_deliveries: a To Do's occurrences and delivery attempts, newest first.

Only the accounts the signed-in user is a member of are visible (admins see every account); anything else is "not found". A tool that needs a scope the sign-in did not grant answers an error naming the scope: sign in again and grant it. Timestamps are ISO 8601 in UTC with milliseconds (2026-11-22T09:15:02.123Z); date filters are calendar days in UTC written MM-DD-YYYY (11-22-2026), both ends inclusive. A recording's "recording" is a signed audio URL valid for 15 minutes, null once the audio is past retention. Acknowledging and marking read or unread, pausing, resuming and cancelling are safe to repeat; create_message and create_to_do create a new item on every call.`

// AccountServices are the customer API services the account tools call: the same ones
// rest.Server holds, so both apply one set of rules.
type AccountServices struct {
	Messages   answerdesk.MessageService
	Recordings answerdesk.CallRecordingService
	ToDos      answerdesk.ToDoService
	// API is the customer API's OpenAPI document (rest.OpenAPIV2): a tool takes the
	// arguments of the operation it mirrors, with their schemas.
	API []byte
}

// NewAccountServer is the account MCP server (/mcp/account): one tool per customer API
// operation on messages, call recordings and To Dos. Tools act for the *answerdesk.Caller
// in the request's context (answerdesk.NewContextWithCaller), which the HTTP middleware in
// front of Handler puts there after checking the bearer; the services check its scopes.
func NewAccountServer(cfg Config, svc AccountServices) *server.MCPServer {
	if svc.Messages == nil || svc.Recordings == nil || svc.ToDos == nil {
		panic("mcp: NewAccountServer needs the message, recording and To Do services")
	}
	api, err := newAPIArgs(svc.API)
	if err != nil {
		panic("mcp: NewAccountServer: " + err.Error())
	}
	s := newServer("answerdesk-account", "answerdesk account", cfg, accountInstructions)
	a := &accountTools{cfg: cfg, svc: svc, api: api}
	s.AddTools(
		a.listMessages(),
		a.getRecentMessages(),
		a.getMessage(),
		a.getMessageCallRecording(),
		a.createMessage(),
		a.acknowledgeMessage(),
		a.markMessageRead(),
		a.markMessageUnread(),
		a.listCallRecordings(),
		a.getCallRecording(),
		a.listToDos(),
		a.getToDo(),
		a.createToDo(),
		a.updateToDo(),
		a.pauseToDo(),
		a.resumeToDo(),
		a.cancelToDo(),
		a.listToDoDeliveries(),
	)
	return s
}

type accountTools struct {
	cfg Config
	svc AccountServices
	api *apiArgs
}

// The results: the bodies of the customer API's answers.
type (
	dataBody struct {
		Data any `json:"data"`
	}
	listBody struct {
		Data any                 `json:"data"`
		Meta answerdesk.PageMeta `json:"meta"`
	}
)

// oneResult is the body of a result that is one item (or the error): REST's writeOne.
func oneResult(v any, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return dataBody{Data: v}, nil
}

// pageResult is the body of a result that is a page of a list (or the error): REST's writeList.
func pageResult[T any](list []T, meta answerdesk.PageMeta, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return listBody{Data: list, Meta: meta}, nil
}

// accountCall is the work of one tool: read the arguments, call one service method with
// the caller, and return the answer's body.
type accountCall func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error)

// tool is the tool that runs an accountCall for the caller in ctx, taking only the known
// argument names. The result is REST's body, as structured content and as its JSON text; any
// error goes through toolError.
func (a *accountTools) tool(tool mcpgo.Tool, known []string, run accountCall) server.ServerTool {
	return readTool(a.cfg, tool, func(ctx context.Context, req mcpgo.CallToolRequest) (json.RawMessage, error) {
		body, err := a.call(ctx, req, known, run)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as REST writes it
		if err := enc.Encode(body); err != nil {
			return nil, fmt.Errorf("encode result: %w", err)
		}
		return json.RawMessage(bytes.TrimRight(b.Bytes(), "\n")), nil
	}, func(raw json.RawMessage) string { return string(raw) })
}

func (a *accountTools) call(ctx context.Context, req mcpgo.CallToolRequest, known []string, run accountCall) (any, error) {
	c := answerdesk.CallerFromContext(ctx)
	if c == nil {
		return nil, &answerdesk.Error{Code: answerdesk.EUNAUTHORIZED, Message: "not authenticated",
			Hint: "Connect with an OAuth access token, or a customer API token, as the bearer token."}
	}
	args, err := readArgs(req, known...)
	if err != nil {
		return nil, err
	}
	return run(ctx, c, &params{args: args})
}

// params reads a call's arguments as the customer API reads its query (it is the tools'
// answerdesk.Params): each type error is a field error under the argument's name, with
// REST's wording, and the values are then checked by the same root-package rules REST uses
// (MessageFilter.Validate, CheckPaging...).
type params struct {
	args
	v answerdesk.ValidationErrors
}

// Text returns a string argument as given ("" when absent or null).
func (p *params) Text(name string) string {
	v, ok := p.m[name]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.v.Add(name, "must be a string")
	}
	return s
}

// Int returns an integer argument (a whole JSON number, or a string of digits as in a
// query), or nil when absent.
func (p *params) Int(name string) *int {
	v, ok := p.m[name]
	if !ok || v == nil {
		return nil
	}
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			n := int(x)
			return &n
		}
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			return &n
		}
	}
	p.v.Add(name, "must be an integer")
	return nil
}

// Bool returns a boolean argument (true/false, or "true"/"false" as in a query), or nil
// when absent.
func (p *params) Bool(name string) *bool {
	v, ok := p.m[name]
	if !ok || v == nil {
		return nil
	}
	var b bool
	switch v {
	case true, "true", "1":
		b = true
	case false, "false", "0":
	default:
		p.v.Add(name, "must be true or false")
		return nil
	}
	return &b
}

// id returns an id argument: a string, or an integer written as one. A path parameter in
// REST, so required: "" with a field error when absent.
func (p *params) id(name string) string {
	s, ok := p.optID(name)
	if !ok {
		p.v.Add(name, "is required")
	}
	return s
}

// optID is an optional id argument (string or integer); ok is false when absent or empty.
func (p *params) optID(name string) (string, bool) {
	switch x := p.m[name].(type) {
	case nil:
	case string:
		s := strings.TrimSpace(x)
		return s, s != ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	default:
		p.v.Add(name, "must be a string or an integer")
		return "", true
	}
	return "", false
}

// ID returns an optional id argument (a string, as in a query, or an integer), "" when
// absent.
func (p *params) ID(name string) string {
	s, _ := p.optID(name)
	return s
}

// err is the argument type errors, or nil.
func (p *params) err() error { return p.v.Err() }

// body returns the arguments as the JSON object REST's create operations take in their body.
func (p *params) body() json.RawMessage {
	b, _ := json.Marshal(p.m) // decoded from JSON, so it encodes
	return b
}

// --- annotations and schemas ---

// writes sets the annotations of a tool that changes the account: not read-only, not
// destructive (nothing is deleted or overwritten beyond the flags it sets), closed world.
func writes(title string, idempotent bool) []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithTitleAnnotation(title),
		mcpgo.WithReadOnlyHintAnnotation(false),
		mcpgo.WithDestructiveHintAnnotation(false),
		mcpgo.WithIdempotentHintAnnotation(idempotent),
		mcpgo.WithOpenWorldHintAnnotation(false),
		mcpgo.WithSchemaAdditionalProperties(false),
	}
}

// One result's shapes, for the output schemas: the customer API's envelopes.
type (
	oneOf[T any]  = schema.One[T]
	allOf[T any]  = schema.All[T]
	pageOf[T any] = schema.Page[T]
)

// accountOutput is the output schema of result type T (oneOf, allOf or pageOf a domain
// type), with data described by dataDesc. The domain types' JSON is the customer API's,
// and so is the schema: the reflection the OpenAPI document's components come from.
func accountOutput[T any](dataDesc string) mcpgo.ToolOption {
	sch, err := schema.For[T]()
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err)) // a programming error, caught by every test
	}
	sch.Properties["data"].Description = dataDesc
	if d := sch.Properties["data"]; d.Types != nil { // lists are never null
		d.Type, d.Types = "array", nil
	}
	raw, err := json.Marshal(sch)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %T: %v", *new(T), err))
	}
	return func(t *mcpgo.Tool) {
		_ = json.Unmarshal(raw, &t.OutputSchema) // marshalled just above
		t.OutputSchema.Type = "object"
		t.OutputSchema.PropertyOrder = nil // sorted, as every other tool
	}
}

// args are the arguments of the tool mirroring operation id (inner: see apiArgs.operation),
// with the tool's own descriptions of those named. A missing operation is a programming
// error, caught by every test that builds the server.
func (a *accountTools) args(id, inner string, descriptions map[string]string) toolArgs {
	args, err := a.api.operation(id, inner)
	if err != nil {
		panic(fmt.Sprintf("mcp: arguments of %s: %v", id, err))
	}
	return args.describe(descriptions)
}

// pagingDescriptions describe page and page_size for a list of def items per page, at most max.
func pagingDescriptions(def, max int) map[string]string {
	return map[string]string{
		"page":      "The page to return, from 1; default 1. meta.total_pages says how many there are.",
		"page_size": fmt.Sprintf("Items per page, 1 to %d; default %d. A value out of range is an error, not clamped.", max, def),
	}
}

// merge is descriptions and more, in a new map.
func merge(descriptions, more map[string]string) map[string]string {
	out := maps.Clone(descriptions)
	maps.Copy(out, more)
	return out
}

const recordingScope = "Needs the recordings:read scope."

// --- messages ---

func (a *accountTools) listMessages() server.ServerTool {
	args := a.args("listMessages", "", merge(pagingDescriptions(answerdesk.DefaultMessagePageSize, answerdesk.MaxMessagePageSize), map[string]string{
		"origin":     "Only messages that came in on this channel: " + strings.Join(answerdesk.Origins, ", ") + " (any case).",
		"status":     "Only messages with this status: new (taken), delivered (reached an on-call contact) or acknowledged.",
		"start_date": "Only messages created on or after this day (UTC), written MM-DD-YYYY, e.g. 11-01-2026.",
		"end_date":   "Only messages created on or before this day (UTC), written MM-DD-YYYY, e.g. 11-30-2026.",
		"read":       "true for read messages only, false for unread messages only; leave it out for both.",
		"q": "Words and phone numbers to find, e.g. \"water heater\" or \"+1 555 555 0142\": every word must start a word of the message (content, caller's and contact's names, company, email, note, address, answers); " +
			"a phone number in any spelling must be one of its numbers. The other filters still apply.",
		"caller_id": "Only messages from this caller's number, in any spelling, e.g. +1 555 555 0142.",
	}))
	opts := append(readOnly("List messages"), args.option(),
		accountOutput[pageOf[answerdesk.Message]]("The page's messages, newest first (created_at, then id)."))
	tool := toolDef("list_messages",
		"List the messages taken for your accounts, newest first, one page at a time, as GET /api/v2/messages: find them by words and phone numbers (q) or the caller's number, and filter by origin (channel), status, a range of days, and read or unread. "+
			"Returns the messages with every field (caller, content, status, answers, timestamps) and meta with the page, page_size, total and total_pages. Needs the messages:read scope.", opts...)
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			f := answerdesk.ReadMessageFilter(p)
			if err := p.err(); err != nil {
				return nil, err
			}
			q, err := f.Validate()
			if err != nil {
				return nil, err
			}
			return pageResult(a.svc.Messages.FindMessages(ctx, c, q))
		})
}

func (a *accountTools) getRecentMessages() server.ServerTool {
	args := a.args("listRecentMessages", "", map[string]string{
		"limit": fmt.Sprintf("How many messages, 1 to %d; default %d.", answerdesk.MaxRecentLimit, answerdesk.DefaultRecentLimit),
	})
	opts := append(readOnly("Recent messages"), args.option(),
		accountOutput[allOf[answerdesk.Message]]("The newest messages, newest first."))
	tool := toolDef("get_recent_messages",
		"Get the newest messages taken for your accounts, newest first, as GET /api/v2/messages/recents. "+
			"Use it to see what came in lately; use list_messages to filter or page. Needs the messages:read scope.", opts...)
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			raw := p.Int("limit")
			if err := p.err(); err != nil {
				return nil, err
			}
			limit, err := answerdesk.CheckRecentLimit(raw)
			if err != nil {
				return nil, err
			}
			return oneResult(a.svc.Messages.RecentMessages(ctx, c, limit))
		})
}

// idCall is a service method on one item, named by its id.
type idCall[T any] func(ctx context.Context, c *answerdesk.Caller, id string) (T, error)

// idTool is a tool mirroring operation opID, which takes one id (described by idDesc), and
// calls one service method.
func idTool[T any](a *accountTools, opID, idDesc, name, description string, opts []mcpgo.ToolOption, do idCall[T]) server.ServerTool {
	args := a.args(opID, "", map[string]string{"id": idDesc})
	opts = append(opts, args.option())
	checkID := args.idChecker()
	return a.tool(toolDef(name, description, opts...), args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			id := p.id("id")
			checkID(p)
			if err := p.err(); err != nil {
				return nil, err
			}
			return oneResult(do(ctx, c, id))
		})
}

// messageIDDescription describes the id argument of the tools on one message.
const messageIDDescription = "The message's integer id (e.g. \"1234\") or its uuid, as list_messages returns them."

// messageTool is a tool mirroring operation opID on one message, which calls one message
// service method.
func messageTool[T any](a *accountTools, opID, name, description string, opts []mcpgo.ToolOption, do idCall[T]) server.ServerTool {
	return idTool(a, opID, messageIDDescription, name, description, opts, do)
}

func (a *accountTools) getMessage() server.ServerTool {
	return messageTool(a, "getMessage", "get_message",
		"Get one message by its integer id or its uuid, with every field, as GET /api/v2/messages/{id}. "+
			"A message of an account you cannot see is not found. Needs the messages:read scope.",
		append(readOnly("Get a message"), accountOutput[oneOf[answerdesk.Message]]("The message.")),
		a.svc.Messages.FindMessage)
}

func (a *accountTools) getMessageCallRecording() server.ServerTool {
	return messageTool(a, "getMessageCallRecording", "get_message_call_recording",
		"Get the recording of a message's call, as GET /api/v2/messages/{id}/call-recording: the call detail record and a signed audio URL (valid 15 minutes). "+
			"Not found when the message did not come from a recorded call. Needs the messages:read and recordings:read scopes.",
		append(readOnly("Recording of a message's call"), accountOutput[oneOf[answerdesk.CallRecording]]("The recording of the message's call.")),
		a.svc.Recordings.FindMessageCallRecording)
}

func (a *accountTools) createMessage() server.ServerTool {
	// The body's message object, flat: the other properties keep their descriptions, the
	// API's (the jsonschema tags of answerdesk.MessageCreateRequest).
	args := a.args("createMessage", "message", map[string]string{
		"content":             "The message itself, e.g. \"Mrs. Diaz called about a leaking water heater; please call back today.\"",
		"account_number":      "The number of the account the message is for, e.g. 1001. Required unless you are a member of exactly one account.",
		"origin":              "The channel the message came in on; default API (AI_CALL when from_ai_assistant is true).",
		"from_ai_assistant":   "true when an AI assistant took the message; origin then defaults to AI_CALL.",
		"is_emergency":        "true for an emergency; default false.",
		"escalation_level_id": "The escalation level to deliver the message to first; default the account's first level.",
		"answers":             fmt.Sprintf("The script's answers: question name to answer, e.g. {\"issue\": \"leak\"}. At most %d questions.", answerdesk.MaxAnswers),
	})
	opts := append(writes("Create a message", false), args.option(),
		accountOutput[oneOf[answerdesk.Message]]("The new message (status new)."))
	tool := toolDef("create_message",
		"Take a new message on one of your accounts, as POST /api/v2/messages: content is required, the other fields describe the caller. "+
			"The message is stored with status new and delivered to the account's on-call contacts at once. Every call creates a new message. Needs the messages:write scope.", opts...)
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			req, err := answerdesk.ParseMessageCreate(p.body())
			if err != nil {
				return nil, err
			}
			return oneResult(a.svc.Messages.CreateMessage(ctx, c, req))
		})
}

func (a *accountTools) acknowledgeMessage() server.ServerTool {
	return messageTool(a, "acknowledgeMessage", "acknowledge_message",
		"Acknowledge a message, as PATCH /api/v2/messages/{id}/acknowledge: its status becomes acknowledged, acknowledged_at is set, and its escalation to further on-call contacts stops. "+
			"Acknowledging again changes nothing. Needs the messages:write scope.",
		append(writes("Acknowledge a message", true), accountOutput[oneOf[answerdesk.Message]]("The message as it is now.")),
		a.svc.Messages.AcknowledgeMessage)
}

func (a *accountTools) markMessageRead() server.ServerTool {
	return messageTool(a, "markMessageAsRead", "mark_message_read",
		"Mark a message read (read: true), as PATCH /api/v2/messages/{id}/mark-as-read. Marking a read message read changes nothing. Needs the messages:write scope.",
		append(writes("Mark a message read", true), accountOutput[oneOf[answerdesk.Message]]("The message as it is now.")),
		func(ctx context.Context, c *answerdesk.Caller, id string) (any, error) {
			return a.svc.Messages.SetMessageRead(ctx, c, id, true)
		})
}

func (a *accountTools) markMessageUnread() server.ServerTool {
	return messageTool(a, "markMessageAsUnread", "mark_message_unread",
		"Mark a message unread (read: false), as PATCH /api/v2/messages/{id}/mark-as-unread. Marking an unread message unread changes nothing. Needs the messages:write scope.",
		append(writes("Mark a message unread", true), accountOutput[oneOf[answerdesk.Message]]("The message as it is now.")),
		func(ctx context.Context, c *answerdesk.Caller, id string) (any, error) {
			return a.svc.Messages.SetMessageRead(ctx, c, id, false)
		})
}

// --- call recordings ---

func (a *accountTools) listCallRecordings() server.ServerTool {
	args := a.args("listCallRecordings", "", merge(pagingDescriptions(answerdesk.DefaultRecordingPageSize, answerdesk.MaxRecordingPageSize), map[string]string{
		"account_id": "Only recordings of this account, by its integer id (the account_id of a message), e.g. \"1\".",
		"skill_name": "Only recordings of calls answered under this skill (the cdr's skill_name), exact match.",
		"from_date":  "Only calls started on or after this day (UTC), written MM-DD-YYYY, e.g. 11-01-2026.",
		"to_date":    "Only calls started on or before this day (UTC), written MM-DD-YYYY, e.g. 11-30-2026.",
		"sample":     "true for up to page_size recordings drawn at random from the filtered set instead of a page (meta then has no total_pages); default false.",
	}))
	opts := append(readOnly("List call recordings"), args.option(),
		accountOutput[pageOf[answerdesk.CallRecording]]("The page's recordings, newest first (started_at, then id), each with its call detail record (cdr) and a signed audio URL (recording) valid 15 minutes, or null once the audio is past retention."))
	tool := toolDef("list_call_recordings",
		"List the call recordings of your accounts, newest first, one page at a time, as GET /api/v2/call-recordings: filter by account, skill and a range of days, or draw a random sample. "+
			"Each recording has the call's detail record (times, durations, agent, skill) and a signed audio URL. "+recordingScope, opts...)
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			f := answerdesk.ReadRecordingFilter(p)
			if err := p.err(); err != nil {
				return nil, err
			}
			q, err := f.Validate()
			if err != nil {
				return nil, err
			}
			return pageResult(a.svc.Recordings.FindCallRecordings(ctx, c, q))
		})
}

func (a *accountTools) getCallRecording() server.ServerTool {
	return idTool(a, "getCallRecording", "The recording's integer id, e.g. \"42\", as list_call_recordings returns it.",
		"get_call_recording",
		"Get one call recording by id, as GET /api/v2/call-recordings/{id}: the call detail record and a signed audio URL valid 15 minutes. "+
			"A recording of an account you cannot see is not found. "+recordingScope,
		append(readOnly("Get a call recording"),
			accountOutput[oneOf[answerdesk.CallRecording]]("The recording with its call detail record (cdr) and a signed audio URL (recording) valid 15 minutes, or null once the audio is past retention.")),
		a.svc.Recordings.FindCallRecording)
}

// --- To Dos ---

// scheduleDescription describes the schedule argument of create_to_do and update_to_do.
const scheduleDescription = `When to deliver it, in the account's time zone: {"rule": "immediately"}; {"rule": "today", "times": ["09:30", "17:00"]} (times still ahead today); or recurring, without rule: {"frequency": "weekly", "interval": 1, "days": ["monday", "wednesday"], "times": ["09:30"]}, optionally with "until": "2026-12-31" or "count": 10 (not both) and "skip_dates": ["2026-12-25"].`

// toDoFieldDescriptions describe the fields of a To Do a create or an update gives.
var toDoFieldDescriptions = map[string]string{
	"name":         "A name for the To Do; default its creation time.",
	"contact":      "Who receives it: a phone number (e.g. +15555550123) for sms and ai_outbound_call, an email address for email.",
	"message_text": fmt.Sprintf("The text of an sms (at most %d characters) or the body of an email.", answerdesk.MaxSMSLength),
	"instructions": "For call and ai_outbound_call: what the agent or AI assistant says or does.",
	"from":         "For sms: an SMS-enabled number of the account to send from, e.g. +15550101001 (a leading +1 is stripped).",
	"from_email":   "For email: the sender address; its domain must be an authenticated sending domain of the account, and it must not be blacklisted.",
	"sender_name":  "For email: the sender's display name.",
	"subject":      "For email: the subject line.",
}

func (a *accountTools) listToDos() server.ServerTool {
	args := a.args("listToDos", "", merge(pagingDescriptions(answerdesk.DefaultToDoPageSize, answerdesk.MaxToDoPageSize), map[string]string{
		"state": "Only To Dos in this state: active (something left to send), paused, completed (nothing left) or cancelled. Default: every state.",
	}))
	opts := append(readOnly("List To Dos"), args.option(),
		accountOutput[pageOf[answerdesk.ToDo]]("The page's To Dos, newest first, each with its state, schedule (next_occurrence, previous_occurrence, upcoming) and last_delivery."))
	tool := toolDef("list_to_dos",
		"List the To Dos (scheduled texts, emails and calls) of your accounts, newest first, one page at a time, as GET /api/v2/to-dos. "+
			"Each has its state, delivery type, contact, text or instructions, schedule with the next and previous occurrence, and the outcome of its last delivery. Needs the todos:read scope.", opts...)
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			f := answerdesk.ReadToDoFilter(p, &p.v)
			if err := p.err(); err != nil {
				return nil, err
			}
			return pageResult(a.svc.ToDos.FindToDos(ctx, c, f))
		})
}

func (a *accountTools) createToDo() server.ServerTool {
	args := a.args("createToDo", "", merge(toDoFieldDescriptions, map[string]string{
		"account_number": "The number of the account the To Do runs for, e.g. 1001; you must be a member of it.",
		"delivery_type":  "How to deliver it (any case): sms (needs from, contact, message_text), email (needs contact, message_text, from_email), call (needs instructions: an agent calls), ai_outbound_call (needs contact, instructions; only where the server enables it).",
		"schedule":       scheduleDescription,
	}))
	// Open world: a To Do sends SMS, email and calls to people outside answerdesk.
	opts := append(writes("Create a To Do", false), mcpgo.WithOpenWorldHintAnnotation(true), args.option(),
		accountOutput[oneOf[answerdesk.ToDo]]("The new To Do with its schedule (next_occurrence is when it is delivered first)."))
	tool := toolDef("create_to_do",
		"Schedule a To Do on one of your accounts, as POST /api/v2/to-dos: an sms, email, call or AI outbound call, delivered now, today at given times, or on a recurring schedule. "+
			"The arguments are the API's flat body; every bad field is reported at once. Every call creates a new To Do. Needs the todos:write scope.", opts...)
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			// Account numbers are digits, and some clients (the MCP Inspector CLI) send
			// 1001 for "1001": take a whole number as its decimal string.
			if n, ok := p.m["account_number"].(float64); ok && n == math.Trunc(n) && n >= 0 && n < 1e15 {
				p.m["account_number"] = strconv.FormatInt(int64(n), 10)
			}
			req, err := answerdesk.ParseToDoCreateFor(a.svc.ToDos.DeliveryTypeOffered, p.body())
			if err != nil {
				return nil, err
			}
			return oneResult(a.svc.ToDos.CreateToDo(ctx, c, req))
		})
}

// toDoIDDescription describes the id argument of the tools on one To Do.
const toDoIDDescription = "The To Do's integer id (e.g. \"42\"), as list_to_dos and create_to_do return it."

// toDoTool is a tool mirroring operation opID on one To Do, which calls one To Do service
// method.
func toDoTool[T any](a *accountTools, opID, name, description string, opts []mcpgo.ToolOption, do idCall[T]) server.ServerTool {
	return idTool(a, opID, toDoIDDescription, name, description, opts, do)
}

func (a *accountTools) getToDo() server.ServerTool {
	return toDoTool(a, "getToDo", "get_to_do",
		"Get one To Do by id, as GET /api/v2/to-dos/{id}: its state (active, paused, completed, cancelled), delivery fields, schedule with next_occurrence and the next five occurrences (schedule.upcoming), and last_delivery. "+
			"A To Do of an account you cannot see is not found. Needs the todos:read scope.",
		append(readOnly("Get a To Do"), accountOutput[oneOf[answerdesk.ToDo]]("The To Do.")),
		a.svc.ToDos.FindToDo)
}

func (a *accountTools) pauseToDo() server.ServerTool {
	return toDoTool(a, "pauseToDo", "pause_to_do",
		"Pause a To Do, as PATCH /api/v2/to-dos/{id}/pause: nothing is sent while it is paused (an occurrence already being sent finishes) and next_occurrence is null. "+
			"Pausing a paused To Do changes nothing; a cancelled or completed one is an error on state. Needs the todos:write scope.",
		append(writes("Pause a To Do", true), accountOutput[oneOf[answerdesk.ToDo]]("The To Do, now paused.")),
		a.svc.ToDos.PauseToDo)
}

func (a *accountTools) resumeToDo() server.ServerTool {
	return toDoTool(a, "resumeToDo", "resume_to_do",
		"Resume a paused To Do, as PATCH /api/v2/to-dos/{id}/resume: it continues from its next occurrence after now; occurrences missed while it was paused are not sent. "+
			"A To Do whose schedule has ended meanwhile becomes completed. Resuming an active To Do changes nothing; a cancelled or completed one is an error on state. Needs the todos:write scope.",
		append(writes("Resume a To Do", true), mcpgo.WithOpenWorldHintAnnotation(true),
			accountOutput[oneOf[answerdesk.ToDo]]("The To Do, active again (or completed when nothing is left).")),
		a.svc.ToDos.ResumeToDo)
}

func (a *accountTools) cancelToDo() server.ServerTool {
	return toDoTool(a, "cancelToDo", "cancel_to_do",
		"Cancel a To Do for good, as DELETE /api/v2/to-dos/{id}: nothing more is ever sent (an occurrence already being sent finishes), state becomes cancelled and next_occurrence null. "+
			"It cannot be resumed or changed afterwards, but stays readable with its deliveries. Cancelling again changes nothing. Needs the todos:write scope.",
		append(writes("Cancel a To Do", true), mcpgo.WithDestructiveHintAnnotation(true),
			accountOutput[oneOf[answerdesk.ToDo]]("The To Do, now cancelled.")),
		a.svc.ToDos.CancelToDo)
}

func (a *accountTools) updateToDo() server.ServerTool {
	args := a.args("updateToDo", "", map[string]string{
		"id":             toDoIDDescription,
		"account_number": "Cannot be changed: an error names it. Cancel the To Do and create a new one instead.",
		"delivery_type":  "Cannot be changed: an error names it. Cancel the To Do and create a new one instead.",
		"schedule":       "A new schedule, replacing the old one from now on (same forms as create_to_do). " + scheduleDescription,
		"name":           "A new name.",
		"contact":        "A new recipient: a phone number for sms, call and ai_outbound_call, an email address for email.",
		"message_text":   fmt.Sprintf("New text of an sms (at most %d characters) or body of an email.", answerdesk.MaxSMSLength),
		"instructions":   "New instructions of a call or ai_outbound_call.",
		"from":           "sms: another SMS-enabled number of the account to send from.",
		"from_email":     "email: another sender address on an authenticated sending domain of the account.",
		"sender_name":    "email: a new sender display name.",
		"subject":        "email: a new subject line.",
	})
	opts := append(writes("Change a To Do", false), mcpgo.WithOpenWorldHintAnnotation(true), mcpgo.WithDestructiveHintAnnotation(true),
		args.option(), accountOutput[oneOf[answerdesk.ToDo]]("The To Do as it is now."))
	tool := toolDef("update_to_do",
		"Change some fields of a To Do, as PATCH /api/v2/to-dos/{id}: give only what changes. The result is checked exactly as create_to_do checks a new To Do. "+
			"account_number and delivery_type cannot be changed (an error on that field: cancel and create a new To Do). A new schedule replaces the old one and recomputes next_occurrence; "+
			"a paused To Do stays paused, a completed one becomes active again, a cancelled one cannot be changed. Needs the todos:write scope.", opts...)
	checkID := args.idChecker()
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			id := p.id("id")
			checkID(p)
			if err := p.err(); err != nil {
				return nil, err
			}
			delete(p.m, "id")
			patch, err := answerdesk.ParseToDoPatch(p.body())
			if err != nil {
				return nil, err
			}
			return oneResult(a.svc.ToDos.UpdateToDo(ctx, c, id, patch))
		})
}

func (a *accountTools) listToDoDeliveries() server.ServerTool {
	args := a.args("listToDoDeliveries", "", merge(pagingDescriptions(answerdesk.DefaultToDoDeliveryPageSize, answerdesk.MaxToDoDeliveryPageSize),
		map[string]string{"id": toDoIDDescription}))
	opts := append(readOnly("List a To Do's deliveries"), args.option(),
		accountOutput[pageOf[answerdesk.ToDoDelivery]]("The To Do's occurrences, newest first, each with its status and attempts."))
	tool := toolDef("list_to_do_deliveries",
		"List a To Do's occurrences and their delivery attempts, newest first, as GET /api/v2/to-dos/{id}/deliveries: scheduled_for, status (pending, sending, sent, failed, skipped), channel, error, "+
			"and attempts [{at, status, error}]. An occurrence dropped by a pause, cancel or schedule change is skipped with the reason. Needs the todos:read scope.", opts...)
	checkID := args.idChecker()
	return a.tool(tool, args.names(),
		func(ctx context.Context, c *answerdesk.Caller, p *params) (any, error) {
			id, page, size := p.id("id"), p.Int("page"), p.Int("page_size")
			checkID(p)
			if err := p.err(); err != nil {
				return nil, err
			}
			pg := answerdesk.CheckPaging(&p.v, page, size, answerdesk.DefaultToDoDeliveryPageSize, answerdesk.MaxToDoDeliveryPageSize)
			if err := p.err(); err != nil {
				return nil, err
			}
			return pageResult(a.svc.ToDos.FindToDoDeliveries(ctx, c, id, pg))
		})
}
