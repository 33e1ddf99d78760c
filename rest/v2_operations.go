package rest

import (
	"context"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/answerdesk/answerdesk"
)

// serverOperation is an operation of the customer API v2.
type serverOperation struct {
	operation
	public bool // served without the bearer token (the document alone)
	handle func(*Server, http.ResponseWriter, *http.Request)
	// maxBody bounds the request body; nil is MaxBodyBytes.
	maxBody func(*Server) int64
}

// v2ErrorResponses are the response components of the customer API's errors, by status; an
// operation with another one says so (with).
var v2ErrorResponses = map[int]string{
	http.StatusBadRequest: "ProcessingError", http.StatusUnauthorized: "Unauthorized", http.StatusForbidden: "Forbidden",
	http.StatusNotFound: "NotFound", http.StatusMethodNotAllowed: "MethodNotAllowed", http.StatusConflict: "Conflict",
	http.StatusRequestEntityTooLarge: "PayloadTooLarge", http.StatusUnprocessableEntity: "InvalidParameter",
	http.StatusTooManyRequests: "RateLimited", http.StatusInternalServerError: "InternalError",
}

// conditional adds 304 to the responses of a read served with an ETag (serveRead).
func conditional(errors map[int]string) map[int]string {
	return with(errors, http.StatusNotModified, "NotModified")
}

// v2Errors are the error responses of the given statuses.
func v2Errors(statuses ...int) map[int]string {
	out := make(map[int]string, len(statuses))
	for _, s := range statuses {
		out[s] = v2ErrorResponses[s]
	}
	return out
}

// v2Operations are the operations of the customer API v2: the router serves them
// (v2Routes) and /api/v2/openapi.json describes them (the prose is openapi/v2.json's).
// Every query parameter is declared here with its schema (from the rule's constants where
// there is one); the base holds its prose.
var v2Operations = []serverOperation{
	{operation: operation{method: http.MethodGet, path: "/messages", id: "listMessages", summary: "List messages", scopes: []string{answerdesk.ScopeMessagesRead},
		query: append([]queryParam{foldParam("origin", answerdesk.Origins), enumParam("status", answerdesk.Statuses),
			dateParam("start_date", "StartDate"), dateParam("end_date", "EndDate"), {name: "read", schema: map[string]any{"type": "boolean"}}},
			paging(answerdesk.DefaultMessagePageSize, answerdesk.MaxMessagePageSize)...),
		bodies: okBody("MessageList"), errors: conditional(v2Errors(401, 405, 422, 500))},
		handle: (*Server).listMessages},
	{operation: operation{method: http.MethodPost, path: "/messages", id: "createMessage", summary: "Create a message", scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(400, 401, 405, 413, 422, 500)},
		handle: (*Server).createMessage},
	{operation: operation{method: http.MethodGet, path: "/messages/recents", id: "listRecentMessages", summary: "List recent messages", scopes: []string{answerdesk.ScopeMessagesRead},
		query:  []queryParam{{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": answerdesk.MaxRecentLimit, "default": answerdesk.DefaultRecentLimit}}},
		bodies: okBody("RecentMessageList"), errors: conditional(v2Errors(401, 405, 422, 500))},
		handle: (*Server).recentMessages},
	{operation: operation{method: http.MethodGet, path: "/messages/{id}", id: "getMessage", summary: "Get a message", scopes: []string{answerdesk.ScopeMessagesRead},
		bodies: okBody("MessageResponse"), errors: conditional(v2Errors(401, 404, 405, 500))},
		handle: (*Server).getMessage},
	{operation: operation{method: http.MethodGet, path: "/messages/{id}/call-recording", id: "getMessageCallRecording", summary: "Get the call recording of a message", scopes: []string{answerdesk.ScopeRecordingsRead, answerdesk.ScopeMessagesRead},
		bodies: okBody("CallRecordingResponse"), errors: conditional(v2Errors(401, 404, 405, 500))},
		handle: (*Server).getMessageCallRecording},
	{operation: operation{method: http.MethodPatch, path: "/messages/{id}/acknowledge", id: "acknowledgeMessage", summary: "Acknowledge a message", scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).acknowledgeMessage},
	{operation: operation{method: http.MethodPatch, path: "/messages/{id}/mark-as-read", id: "markMessageAsRead", summary: "Mark a message as read", scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).markMessageAsRead},
	{operation: operation{method: http.MethodPatch, path: "/messages/{id}/mark-as-unread", id: "markMessageAsUnread", summary: "Mark a message as unread", scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).markMessageAsUnread},
	{operation: operation{method: http.MethodGet, path: "/call-recordings", id: "listCallRecordings", summary: "List call recordings", scopes: []string{answerdesk.ScopeRecordingsRead},
		query: append([]queryParam{{name: "account_id", schema: map[string]any{"type": "string", "pattern": "^[0-9]+$"}},
			{name: "skill_name", schema: map[string]any{"type": "string", "maxLength": answerdesk.MaxStringLength}},
			dateParam("from_date", "FromDate"), dateParam("to_date", "ToDate"), {name: "sample", schema: map[string]any{"type": "boolean", "default": false}}},
			paging(answerdesk.DefaultRecordingPageSize, answerdesk.MaxRecordingPageSize)...),
		bodies: okBody("CallRecordingList"), errors: conditional(v2Errors(401, 405, 422, 500))},
		handle: (*Server).listCallRecordings},
	{operation: operation{method: http.MethodPost, path: "/call-recordings", id: "ingestCallRecording", summary: "Hand over a call recording",
		bodies: okBody("CallRecordingResponse"), errors: v2Errors(400, 401, 403, 405, 413, 422, 500)},
		handle: (*Server).ingestCallRecording, maxBody: (*Server).maxIngestBytes},
	{operation: operation{method: http.MethodGet, path: "/call-recordings/{id}", id: "getCallRecording", summary: "Get a call recording", scopes: []string{answerdesk.ScopeRecordingsRead},
		bodies: okBody("CallRecordingResponse"), errors: conditional(v2Errors(401, 404, 405, 500))},
		handle: (*Server).getCallRecording},
	{operation: operation{method: http.MethodGet, path: "/to-dos", id: "listToDos", summary: "List To Dos", scopes: []string{answerdesk.ScopeTodosRead},
		query:  append(paging(answerdesk.DefaultToDoPageSize, answerdesk.MaxToDoPageSize), enumParam("state", answerdesk.ToDoStates)),
		bodies: okBody("ToDoList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listToDos},
	{operation: operation{method: http.MethodPost, path: "/to-dos", id: "createToDo", summary: "Create a To Do", scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(400, 401, 405, 413, 422, 500), http.StatusUnprocessableEntity, "ToDoUnprocessable")},
		handle: (*Server).createToDo},
	{operation: operation{method: http.MethodGet, path: "/to-dos/{id}", id: "getToDo", summary: "Get a To Do", scopes: []string{answerdesk.ScopeTodosRead},
		bodies: okBody("ToDoResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).getToDo},
	{operation: operation{method: http.MethodPatch, path: "/to-dos/{id}", id: "updateToDo", summary: "Change a To Do", scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(400, 401, 404, 405, 413, 422, 500), http.StatusUnprocessableEntity, "ToDoUnprocessable")},
		handle: (*Server).updateToDo},
	{operation: operation{method: http.MethodDelete, path: "/to-dos/{id}", id: "cancelToDo", summary: "Cancel a To Do", scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).cancelToDo},
	{operation: operation{method: http.MethodPatch, path: "/to-dos/{id}/pause", id: "pauseToDo", summary: "Pause a To Do", scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(401, 404, 405, 422, 500), http.StatusUnprocessableEntity, "ToDoStateConflict")},
		handle: (*Server).pauseToDo},
	{operation: operation{method: http.MethodPatch, path: "/to-dos/{id}/resume", id: "resumeToDo", summary: "Resume a To Do", scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(401, 404, 405, 422, 500), http.StatusUnprocessableEntity, "ToDoStateConflict")},
		handle: (*Server).resumeToDo},
	{operation: operation{method: http.MethodGet, path: "/to-dos/{id}/deliveries", id: "listToDoDeliveries", summary: "List a To Do's deliveries", scopes: []string{answerdesk.ScopeTodosRead},
		query:  paging(answerdesk.DefaultToDoDeliveryPageSize, answerdesk.MaxToDoDeliveryPageSize),
		bodies: okBody("ToDoDeliveryList"), errors: v2Errors(401, 404, 405, 422, 500)},
		handle: (*Server).listToDoDeliveries},
	{operation: operation{method: http.MethodGet, path: "/on-call-contacts", id: "listOnCallContacts", summary: "List on-call contacts", scopes: []string{answerdesk.ScopeDispatchRead},
		query:  paging(answerdesk.DefaultContactPageSize, answerdesk.MaxContactPageSize),
		bodies: okBody("OnCallContactList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listOnCallContacts},
	{operation: operation{method: http.MethodPost, path: "/on-call-contacts", id: "createOnCallContact", summary: "Create an on-call contact", scopes: []string{answerdesk.ScopeDispatchWrite},
		bodies: okBody("OnCallContactResponse"), errors: with(v2Errors(400, 401, 405, 413, 422, 500), http.StatusUnprocessableEntity, "OnCallContactUnprocessable")},
		handle: (*Server).createOnCallContact},
	{operation: operation{method: http.MethodDelete, path: "/on-call-contacts/{id}", id: "deleteOnCallContact", summary: "Delete an on-call contact", scopes: []string{answerdesk.ScopeDispatchWrite},
		bodies: okBody("OnCallContactResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).deleteOnCallContact},
	{operation: operation{method: http.MethodGet, path: "/dispatch-deliveries", id: "listDispatchDeliveries", summary: "List dispatch deliveries", scopes: []string{answerdesk.ScopeDispatchRead},
		query: append([]queryParam{{name: "message_id", schema: map[string]any{"type": "integer", "format": "int64", "minimum": 1}}, enumParam("status", answerdesk.DispatchStatuses)},
			paging(answerdesk.DefaultDeliveryPageSize, answerdesk.MaxDeliveryPageSize)...),
		bodies: okBody("DispatchDeliveryList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listDispatchDeliveries},
	{operation: operation{method: http.MethodPost, path: "/dispatch-deliveries/{id}/replay", id: "replayDispatchDelivery", summary: "Replay a dispatch delivery", scopes: []string{answerdesk.ScopeDispatchWrite},
		bodies: okBody("DispatchDeliveryResponse"), errors: v2Errors(401, 404, 405, 409, 429, 500)},
		handle: (*Server).replayDispatchDelivery},
	{operation: operation{method: http.MethodGet, path: "/me", id: "getMe", summary: "Get the caller",
		bodies: okBody("MeResponse"), errors: v2Errors(401, 405, 500)},
		handle: (*Server).getMe},
	{operation: operation{method: http.MethodGet, path: "/accounts", id: "listAccounts", summary: "List accounts",
		query:  paging(answerdesk.DefaultAccountPageSize, answerdesk.MaxAccountPageSize),
		bodies: okBody("AccountList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listAccounts},
	{operation: operation{method: http.MethodPost, path: "/accounts", id: "createAccount", summary: "Create an account",
		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 405, 413, 422, 500)},
		handle: (*Server).createAccount},
	{operation: operation{method: http.MethodGet, path: "/accounts/{number}", id: "getAccount", summary: "Get an account",
		bodies: okBody("AccountResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).getAccount},
	{operation: operation{method: http.MethodPatch, path: "/accounts/{number}", id: "updateAccount", summary: "Update an account",
		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).updateAccount},
	{operation: operation{method: http.MethodPost, path: "/accounts/{number}/sms-numbers", id: "addSmsNumber", summary: "Add an SMS number",
		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).addSMSNumber},
	{operation: operation{method: http.MethodDelete, path: "/accounts/{number}/sms-numbers/{sms_number}", id: "removeSmsNumber", summary: "Remove an SMS number",
		bodies: okBody("SMSNumberResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).removeSMSNumber},
	{operation: operation{method: http.MethodPost, path: "/accounts/{number}/sending-domains", id: "addSendingDomain", summary: "Add a sending domain",
		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).addSendingDomain},
	{operation: operation{method: http.MethodDelete, path: "/accounts/{number}/sending-domains/{domain}", id: "removeSendingDomain", summary: "Remove a sending domain",
		bodies: okBody("SendingDomainResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).removeSendingDomain},
	{operation: operation{method: http.MethodGet, path: "/accounts/{number}/email-blacklist", id: "listBlacklistedEmails", summary: "List blacklisted addresses",
		query:  paging(answerdesk.DefaultBlacklistPageSize, answerdesk.MaxBlacklistPageSize),
		bodies: okBody("BlacklistEntryList"), errors: v2Errors(401, 403, 404, 405, 422, 500)},
		handle: (*Server).listBlacklistedEmails},
	{operation: operation{method: http.MethodPost, path: "/accounts/{number}/email-blacklist", id: "addBlacklistedEmail", summary: "Add a blacklisted address",
		bodies: okBody("BlacklistEntryResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).addBlacklistedEmail},
	{operation: operation{method: http.MethodDelete, path: "/accounts/{number}/email-blacklist/{email}", id: "removeBlacklistedEmail", summary: "Remove a blacklisted address",
		bodies: okBody("BlacklistEntryResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).removeBlacklistedEmail},
	{operation: operation{method: http.MethodGet, path: "/users", id: "listUsers", summary: "List users",
		query:  paging(answerdesk.DefaultUserPageSize, answerdesk.MaxUserPageSize),
		bodies: okBody("UserList"), errors: v2Errors(401, 403, 405, 422, 500)},
		handle: (*Server).listUsers},
	{operation: operation{method: http.MethodPost, path: "/users", id: "createUser", summary: "Create a user",
		bodies: okBody("UserResponse"), errors: v2Errors(400, 401, 403, 405, 413, 422, 500)},
		handle: (*Server).createUser},
	{operation: operation{method: http.MethodGet, path: "/users/{id}", id: "getUser", summary: "Get a user",
		bodies: okBody("UserResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).getUser},
	{operation: operation{method: http.MethodPatch, path: "/users/{id}", id: "updateUser", summary: "Update a user",
		bodies: okBody("UserResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).updateUser},
	{operation: operation{method: http.MethodGet, path: "/openapi.json", id: "getOpenApiDocument", summary: "Get this OpenAPI document",
		bodies: okBody(""), errors: conditional(v2Errors(405, 500))},
		public: true, handle: func(_ *Server, w http.ResponseWriter, r *http.Request) { serveOpenAPIV2(w, r) }},
}

// paging are the page and page_size parameters of a list of def items per page, at most
// max (answerdesk.CheckPaging's rule).
func paging(def, max int) []queryParam {
	return []queryParam{
		{name: "page", shared: "Page", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": answerdesk.MaxPage, "default": 1}},
		{name: "page_size", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": max, "default": def}},
	}
}

// dateParam is an MM-DD-YYYY date filter (answerdesk.ParseDate's), whose prose is the
// shared parameter of the base.
func dateParam(name, shared string) queryParam {
	return queryParam{name: name, shared: shared, schema: map[string]any{"type": "string", "pattern": answerdesk.DatePattern}}
}

// foldParam is a filter parameter taking one of values in any case (and nothing around
// it): the enumeration for readers, the pattern for validators.
func foldParam(name string, values []string) queryParam {
	return queryParam{name: name, schema: map[string]any{"type": "string",
		"anyOf": []any{map[string]any{"enum": values}, map[string]any{"pattern": "^" + foldPattern(values) + "$"}}}}
}

// enumParam is a filter parameter taking one of values.
func enumParam(name string, values []string) queryParam {
	return queryParam{name: name, schema: map[string]any{"type": "string", "enum": values}}
}

// v2Routes serves v2Operations under r: the document without credentials, everything else
// behind the bearer token.
func (s *Server) v2Routes(r chi.Router) {
	// Each operation bounds its own body (handler); a route that matches none reads none.
	for _, op := range v2Operations {
		if op.public {
			r.Method(op.method, op.path, s.handler(op))
		}
	}
	r.Group(func(r chi.Router) {
		r.Use(s.authenticate)
		for _, op := range v2Operations {
			if !op.public {
				r.Method(op.method, op.path, s.handler(op))
			}
		}
	})
}

// handler serves op.
func (s *Server) handler(op serverOperation) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit := int64(MaxBodyBytes)
		if op.maxBody != nil {
			limit = op.maxBody(s)
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if !s.checkPathText(w, r) {
			return
		}
		if name := badQueryText(r); name != "" {
			s.Error(w, r, answerdesk.FieldErr(name, answerdesk.InvalidTextMessage))
			return
		}
		if op.method == http.MethodGet && len(op.scopes) > 0 {
			// For serveRead, which checks them before it answers from its cache.
			r = r.WithContext(context.WithValue(r.Context(), scopesKey{}, op.scopes))
		}
		op.handle(s, w, r)
	}
}

// checkPathText refuses a request whose path parameters are not text (answerdesk.ValidText:
// invalid UTF-8, or a NUL), as given or unescaped (chi matches an escaped path as sent, and
// pathParam unescapes it), before any handler looks them up: such a value names no
// resource (404). It reports whether the request may go on.
func (s *Server) checkPathText(w http.ResponseWriter, r *http.Request) bool {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		for i, key := range rc.URLParams.Keys {
			if i >= len(rc.URLParams.Values) {
				break
			}
			v := rc.URLParams.Values[i]
			u, err := url.PathUnescape(v)
			if !answerdesk.ValidText(v) || err == nil && !answerdesk.ValidText(u) {
				s.Error(w, r, answerdesk.Errorf(answerdesk.ENOTFOUND, "no resource has this %s: it is not valid UTF-8 text, or holds a NUL character", key))
				return false
			}
		}
	}
	return true
}

// v2Ops are the declarations of v2Operations.
func v2Ops() []operation {
	ops := make([]operation, len(v2Operations))
	for i, op := range v2Operations {
		ops[i] = op.operation
	}
	return ops
}
