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
	{operation: operation{method: http.MethodGet, path: "/messages", id: "listMessages", summary: "List messages",
		description: "Returns one page of the messages of the accounts you are a member of (admins see every account), " +
			"newest first (created_at descending, then id descending), filtered by origin, status, read state " +
			"and creation date range. The response carries meta with the page position and a Link header with " +
			"rel=\"next\" and rel=\"prev\" where those pages exist. Every invalid or repeated parameter is " +
			"reported in one 422.",
		scopes: []string{answerdesk.ScopeMessagesRead},
		query: append([]queryParam{foldParam("origin", answerdesk.Origins), enumParam("status", answerdesk.Statuses),
			dateParam("start_date", "StartDate"), dateParam("end_date", "EndDate"), {name: "read", schema: map[string]any{"type": "boolean"}},
			{name: "q", schema: map[string]any{"type": "string", "maxLength": answerdesk.MaxMessageSearchLength}},
			{name: "caller_id", schema: map[string]any{"type": "string", "maxLength": answerdesk.MaxPhoneLength}}},
			paging(answerdesk.DefaultMessagePageSize, answerdesk.MaxMessagePageSize)...),
		bodies: okBody("MessageList"), errors: conditional(v2Errors(401, 405, 422, 500))},
		handle: (*Server).listMessages},
	{operation: operation{method: http.MethodPost, path: "/messages", id: "createMessage", summary: "Create a message",
		description: "Creates a message with status new on one of your accounts and returns it. The body is " +
			"{\"message\": {...}}; the message object accepts any properties, type-checks the known ones and " +
			"ignores the rest. content is required. account_number is required unless you are a member of " +
			"exactly one account. origin defaults to API. Every invalid property is reported in one 422. " +
			"Success is 200, not 201.",
		scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(400, 401, 405, 413, 422, 500)},
		handle: (*Server).createMessage},
	{operation: operation{method: http.MethodGet, path: "/messages/recents", id: "listRecentMessages", summary: "List recent messages",
		description: "Returns your most recent messages, newest first, up to limit. The response has no meta and no " +
			"pagination.",
		scopes: []string{answerdesk.ScopeMessagesRead},
		query:  []queryParam{{name: "limit", schema: map[string]any{"type": "integer", "minimum": 1, "maximum": answerdesk.MaxRecentLimit, "default": answerdesk.DefaultRecentLimit}}},
		bodies: okBody("RecentMessageList"), errors: conditional(v2Errors(401, 405, 422, 500))},
		handle: (*Server).recentMessages},
	{operation: operation{method: http.MethodGet, path: "/messages/{id}", id: "getMessage", summary: "Get a message",
		description: "Returns one message by integer id or uuid.",
		scopes:      []string{answerdesk.ScopeMessagesRead},
		bodies:      okBody("MessageResponse"), errors: conditional(v2Errors(401, 404, 405, 500))},
		handle: (*Server).getMessage},
	{operation: operation{method: http.MethodGet, path: "/messages/{id}/call-recording", id: "getMessageCallRecording", summary: "Get the call recording of a message",
		description: "Returns the recording of the call the message was taken on, with its call detail record and a " +
			"signed audio URL valid for 15 minutes. 404 when the message is not found or has no recording.",
		scopes: []string{answerdesk.ScopeRecordingsRead, answerdesk.ScopeMessagesRead},
		bodies: okBody("CallRecordingResponse"), errors: conditional(v2Errors(401, 404, 405, 500))},
		handle: (*Server).getMessageCallRecording},
	{operation: operation{method: http.MethodPatch, path: "/messages/{id}/acknowledge", id: "acknowledgeMessage", summary: "Acknowledge a message",
		description: "Sets status to acknowledged and acknowledged_at, stops escalation, and returns the updated " +
			"message. No request body. Idempotent: repeating it returns the same result.",
		scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).acknowledgeMessage},
	{operation: operation{method: http.MethodPatch, path: "/messages/{id}/mark-as-read", id: "markMessageAsRead", summary: "Mark a message as read",
		description: "Sets read to true and returns the updated message. No request body. Idempotent: repeating it " +
			"returns the same result.",
		scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).markMessageAsRead},
	{operation: operation{method: http.MethodPatch, path: "/messages/{id}/mark-as-unread", id: "markMessageAsUnread", summary: "Mark a message as unread",
		description: "Sets read to false and returns the updated message. No request body. Idempotent: repeating it " +
			"returns the same result.",
		scopes: []string{answerdesk.ScopeMessagesWrite},
		bodies: okBody("MessageResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).markMessageAsUnread},
	{operation: operation{method: http.MethodGet, path: "/call-recordings", id: "listCallRecordings", summary: "List call recordings",
		description: "Returns one page of the call recordings of the accounts you can see, newest first (started_at " +
			"descending, then id descending), filtered by account, skill and start date range. With " +
			"sample=true it returns instead up to page_size recordings drawn uniformly at random from the " +
			"filtered set: page is ignored, meta has no total_pages and there is no Link header. Each " +
			"recording's audio URL is signed and valid for 15 minutes.",
		scopes: []string{answerdesk.ScopeRecordingsRead},
		query: append([]queryParam{{name: "account_id", schema: map[string]any{"type": "string", "pattern": "^[0-9]+$"}},
			{name: "skill_name", schema: map[string]any{"type": "string", "maxLength": answerdesk.MaxStringLength}},
			dateParam("from_date", "FromDate"), dateParam("to_date", "ToDate"), {name: "sample", schema: map[string]any{"type": "boolean", "default": false}}},
			paging(answerdesk.DefaultRecordingPageSize, answerdesk.MaxRecordingPageSize)...),
		bodies: okBody("CallRecordingList"), errors: conditional(v2Errors(401, 405, 422, 500))},
		handle: (*Server).listCallRecordings},
	{operation: operation{method: http.MethodPost, path: "/call-recordings", id: "ingestCallRecording", summary: "Hand over a call recording",
		description: "Hands over a call recording from the phone system that answered the call: its call detail record " +
			"and, optionally, its audio. Only admins and API tokens created with the scope recordings:write " +
			"(answerdesk token create --user EMAIL --scope recordings:write) may call it; such a token can do " +
			"nothing else (every other operation is 403 forbidden). An account the token's user cannot use is " +
			"a 422 on account_number.\n\nThe body is multipart/form-data with the metadata part (JSON) first " +
			"and, optionally, the audio part (audio/wav, audio/mpeg, audio/ogg, audio/webm or audio/mp4). The " +
			"audio streams into the audio store as it arrives: its first bytes must be of the type named " +
			"(else 422 on audio), and it may be at most the server's --max-audio-bytes (default 256 MiB, else " +
			"413 payload_too_large). An upload cut off midway stores nothing.\n\nRetry-safe: the same " +
			"account_number and call_sid again answers 200 with the recording stored first and stores nothing " +
			"more. A recording without audio has recording: null. Success is 200 with the recording in the " +
			"shape of GET /api/v2/call-recordings/{id}.",

		bodies: okBody("CallRecordingResponse"), errors: v2Errors(400, 401, 403, 405, 413, 422, 500)},
		handle: (*Server).ingestCallRecording, maxBody: (*Server).maxIngestBytes},
	{operation: operation{method: http.MethodGet, path: "/call-recordings/{id}", id: "getCallRecording", summary: "Get a call recording",
		description: "Returns one call recording with its call detail record and a signed audio URL valid for 15 " +
			"minutes.",
		scopes: []string{answerdesk.ScopeRecordingsRead},
		bodies: okBody("CallRecordingResponse"), errors: conditional(v2Errors(401, 404, 405, 500))},
		handle: (*Server).getCallRecording},
	{operation: operation{method: http.MethodGet, path: "/to-dos", id: "listToDos", summary: "List To Dos",
		description: "Returns one page of the To Dos of the accounts you are a member of (admins see every To Do), " +
			"newest first (created_at descending, then id descending). Each To Do carries its schedule, with " +
			"next_occurrence and previous_occurrence, and last_delivery, the outcome of its latest delivery " +
			"attempt (null until the first). Filter by state with `state` (active, paused, completed, " +
			"cancelled); date-range filtering is not supported. The response carries meta with the page " +
			"position and a Link header with rel=\"next\" and rel=\"prev\" where those pages exist. Every invalid " +
			"or repeated parameter is reported in one 422.",
		scopes: []string{answerdesk.ScopeTodosRead},
		query:  append(paging(answerdesk.DefaultToDoPageSize, answerdesk.MaxToDoPageSize), enumParam("state", answerdesk.ToDoStates)),
		bodies: okBody("ToDoList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listToDos},
	{operation: operation{method: http.MethodPost, path: "/to-dos", id: "createToDo", summary: "Create a To Do",
		description: "Creates a To Do on one of your accounts and returns it with its schedule. A To Do sends an SMS, " +
			"an email or a phone call once right away, once or more today, or on a recurring schedule. " +
			"Success is 200, not 201.\n\nThe body is one flat JSON object (no wrapper). Known properties are " +
			"type-checked, unknown ones are ignored, `null` is the same as leaving a property out, and " +
			"strings are trimmed, so a blank string counts as missing. Every invalid property is reported in " +
			"one 422 whose `errors[].field` names the body property (`schedule.times` for a property of the " +
			"schedule).\n\n**Required properties.** `account_number`, `delivery_type` and `schedule` are always " +
			"required. The rest depend on `delivery_type` (matched case-insensitively, stored in lower " +
			"case):\n\n| delivery_type | required | also used | contact is |\n|---|---|---|---|\n| `sms` | " +
			"`from`, `contact`, `message_text` (at most 1600 characters) | `name` | the recipient's phone " +
			"number |\n| `email` | `contact`, `message_text`, `from_email` | `name`, `sender_name`, `subject` " +
			"| the recipient's email address |\n| `call` | `instructions` | `name`, `contact` | the phone " +
			"number to ring; leave it out for a call task handled by a live agent |\n| `ai_outbound_call` | " +
			"`contact`, `instructions` | `name` | the phone number the AI assistant calls |\n\n`name` defaults " +
			"to the creation timestamp. Phone numbers are stored in E.164: ten digits are a North American " +
			"number (`(555) 555-0123` becomes `+15555550123`); any other number starts with `+` and its " +
			"country code. An email without `subject` goes out with the To Do's `name` as subject.\n\n**Checks " +
			"against the account.** Once the body itself is valid, it is checked against the account (each a " +
			"422 on the named field):\n- `account_number`: you must be an admin or a member of the account; an " +
			"account you cannot use is the same 422 as an unknown one.\n- `from` (sms): must be one of the " +
			"account's SMS-enabled numbers. A leading `+1` is stripped before the comparison and the To Do " +
			"keeps `from` without it.\n- `from_email` (email, lower-cased): must not be blacklisted, and its " +
			"domain must be an authenticated sending domain of the account.\n- `ai_outbound_call` is not " +
			"generally released: unless the server runs with `--feature ai-outbound-call` it is 422 with code " +
			"`feature_unavailable` (and `errors` naming `delivery_type`). Where it is enabled, the account " +
			"needs a number with an AI assistant attached (else 422 on `delivery_type`).\n\n**Schedules.** " +
			"Times are wall-clock `HH:MM` (24-hour, `00:00` to `23:59`, at most 24 of them) in the account's " +
			"time zone (the IANA name on the account, default `America/New_York`), never UTC.\n- `{\"rule\": " +
			"\"immediately\"}`: once, right away. No other schedule property is allowed.\n- `{\"rule\": \"today\", " +
			"\"times\": [\"09:30\", \"17:00\"]}`: once at each time, today in the account's time zone. A time that " +
			"has already passed there is 422.\n- Recurring (leave `rule` out): `frequency` (`daily`, `weekly` " +
			"or `monthly`), `times`, optional `interval` (1 to 1000, default 1) and `days`:\n  - " +
			"`{\"frequency\": \"daily\", \"times\": [\"08:00\"]}`: every day at 08:00.\n  - `{\"frequency\": \"weekly\", " +
			"\"interval\": 2, \"days\": [\"monday\", \"wednesday\"], \"times\": [\"09:30\", \"17:00\"]}`: every other week " +
			"on Monday and Wednesday, at 09:30 and at 17:00.\n  - `{\"frequency\": \"monthly\", \"days\": [1, 15], " +
			"\"times\": [\"08:00\"]}`: on the 1st and 15th of every month; a month without a listed day (the 31st " +
			"in April) skips it.\n\n`days` is required for weekly (weekday names, any case) and monthly " +
			"(integers 1 to 31) schedules and not allowed for daily ones. `interval` counts days, weeks " +
			"(Monday to Sunday) or months from the day of creation. A recurring To Do runs until it is paused " +
			"or cancelled, unless it has `until` (the last local date it may fire on, RFC 5545 UNTIL) or " +
			"`count` (its number of occurrences from creation, RFC 5545 COUNT; not both). `skip_dates` lists " +
			"local dates (holidays) on which it does not fire; a skipped date still uses up one of `count`. A " +
			"recurring schedule that has no occurrence left (an `until` before its first day, every day " +
			"skipped) is 422 on `schedule`. The created To Do shows the stored form of the schedule in " +
			"`schedule.rule` (for recurring schedules an RFC 5545 RRULE with its time zone).\n\n**Following " +
			"delivery.** `state` is `active` while something is left to send, then `completed` (see the " +
			"lifecycle routes below for paused and cancelled); `schedule.upcoming` lists the next five " +
			"occurrences (in UTC, computed in the account's time zone, so across daylight-saving changes); " +
			"`schedule.next_occurrence` is when the To Do is next sent (the first occurrence right after " +
			"creation; `null` once none is left) and `schedule.previous_occurrence` the latest occurrence " +
			"that came due. Each occurrence is sent once; `is_sending` is true while it is in flight. " +
			"`last_delivery` is `null` until the first attempt, then the outcome of the latest attempt: " +
			"`status` `sent`, `failed` (a failed attempt of a temporary error is retried, and the retry's " +
			"outcome replaces it) or `skipped` (missed while the service was not running: of the occurrences " +
			"missed, only the latest is sent), `channel` `smtp`, `twilio` or `outbox` (the delivery was " +
			"recorded without a provider), `at` and `error`. Poll `GET /api/v2/to-dos/{id}` to follow it.",
		scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(400, 401, 405, 413, 422, 500), http.StatusUnprocessableEntity, "ToDoUnprocessable")},
		handle: (*Server).createToDo},
	{operation: operation{method: http.MethodGet, path: "/to-dos/{id}", id: "getToDo", summary: "Get a To Do",
		description: "Returns one To Do by integer id, with its schedule and delivery state. A To Do of an account you " +
			"cannot see is 404, as is an id that is not a positive integer. Poll it to follow delivery: " +
			"is_sending is true while an occurrence is in flight, last_delivery is null until the first " +
			"attempt and then holds the outcome of the latest one (status sent, failed or skipped; channel " +
			"smtp, twilio or outbox; at; error), and schedule.next_occurrence and " +
			"schedule.previous_occurrence show where the schedule stands (next_occurrence is null once " +
			"nothing is left to send).",
		scopes: []string{answerdesk.ScopeTodosRead},
		bodies: okBody("ToDoResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).getToDo},
	{operation: operation{method: http.MethodPatch, path: "/to-dos/{id}", id: "updateToDo", summary: "Change a To Do",
		description: "Changes some properties of a To Do and returns it. Give only what changes; `null` clears an " +
			"optional property. The To Do with the changes applied is validated exactly as a create (`POST " +
			"/api/v2/to-dos`), against its account too (SMS numbers, sending domains, blacklist), and every " +
			"failing property is reported in one 422.\n\n`account_number` and `delivery_type` cannot be " +
			"changed: naming either, even with its current value, is a 422 on that field (cancel the To Do " +
			"and create a new one). A `schedule` replaces the old one from now on: `next_occurrence` is " +
			"recomputed (a `count` counts from the change), the old schedule's occurrences that were still " +
			"waiting are dropped (shown as skipped in the deliveries), and an occurrence already being sent " +
			"finishes. A paused To Do stays paused; a completed To Do given a new schedule becomes active " +
			"again; a cancelled To Do cannot be changed (422 on state). Without `schedule` the schedule is " +
			"left as it is, even a `today` one whose times have passed. Changes of content apply to every " +
			"occurrence not yet claimed by the scheduler.",
		scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(400, 401, 404, 405, 413, 422, 500), http.StatusUnprocessableEntity, "ToDoUnprocessable")},
		handle: (*Server).updateToDo},
	{operation: operation{method: http.MethodDelete, path: "/to-dos/{id}", id: "cancelToDo", summary: "Cancel a To Do",
		description: "Cancels a To Do for good and returns it, as `{\"data\": to_do}` with status 200: `state` becomes " +
			"`cancelled` and `schedule.next_occurrence` null. Nothing more is ever sent; occurrences that " +
			"were waiting (including retries) are dropped and shown as skipped in the deliveries, and an " +
			"occurrence already handed to a provider finishes. The To Do is not deleted: it stays readable, " +
			"in the list (`?state=cancelled`) and with its deliveries. Cancelling is idempotent (a cancelled " +
			"To Do answers 200 again) and works in every state. No request body. States: active (it has a " +
			"next occurrence, or one is being sent), paused, completed (nothing is left: a one-off that was " +
			"sent, or a recurrence that ended) and cancelled. Every change is one database transaction, so it " +
			"is safe against the scheduler running at the same moment: an occurrence the scheduler has " +
			"already claimed (is_sending true) finishes; no other starts after the change is answered.",
		scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).cancelToDo},
	{operation: operation{method: http.MethodPatch, path: "/to-dos/{id}/pause", id: "pauseToDo", summary: "Pause a To Do",
		description: "Pauses an active To Do and returns it: nothing is sent while it is paused and " +
			"`schedule.next_occurrence` is null. Occurrences waiting to be sent (including retries) are " +
			"dropped; an occurrence already handed to a provider finishes. Pausing a paused To Do answers 200 " +
			"and changes nothing; pausing a cancelled or completed To Do is 422 (errors naming state). No " +
			"request body. States: active (it has a next occurrence, or one is being sent), paused, completed " +
			"(nothing is left: a one-off that was sent, or a recurrence that ended) and cancelled. Every " +
			"change is one database transaction, so it is safe against the scheduler running at the same " +
			"moment: an occurrence the scheduler has already claimed (is_sending true) finishes; no other " +
			"starts after the change is answered.",
		scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(401, 404, 405, 422, 500), http.StatusUnprocessableEntity, "ToDoStateConflict")},
		handle: (*Server).pauseToDo},
	{operation: operation{method: http.MethodPatch, path: "/to-dos/{id}/resume", id: "resumeToDo", summary: "Resume a To Do",
		description: "Resumes a paused To Do and returns it: it continues from its next occurrence after now, and the " +
			"occurrences that came due while it was paused are not sent. A To Do whose schedule ended while " +
			"it was paused (a one-off, an `until` or `count` reached) becomes completed. Resuming an active " +
			"To Do answers 200 and changes nothing; resuming a cancelled or completed To Do is 422 (errors " +
			"naming state). No request body.",
		scopes: []string{answerdesk.ScopeTodosWrite},
		bodies: okBody("ToDoResponse"), errors: with(v2Errors(401, 404, 405, 422, 500), http.StatusUnprocessableEntity, "ToDoStateConflict")},
		handle: (*Server).resumeToDo},
	{operation: operation{method: http.MethodGet, path: "/to-dos/{id}/deliveries", id: "listToDoDeliveries", summary: "List a To Do's deliveries",
		description: "Returns one page of the To Do's occurrences, newest first (`scheduled_for` descending), each " +
			"with its status and every delivery attempt (oldest first). Status: `pending` (waiting, or " +
			"waiting for a retry), `sending` (claimed by the scheduler), `sent`, `failed` (a permanent error, " +
			"or no retries left) or `skipped` (missed while the service was not running, or dropped by a " +
			"pause, a cancel or a schedule change; `error` says which). `channel` is the channel of the " +
			"latest attempt (null before the first). A failed attempt that was retried shows status `failed`, " +
			"as in last_delivery. Occurrences that came due while the To Do was paused are not listed: they " +
			"never became occurrences. The response carries meta and a Link header as every list.",
		scopes: []string{answerdesk.ScopeTodosRead},
		query:  paging(answerdesk.DefaultToDoDeliveryPageSize, answerdesk.MaxToDoDeliveryPageSize),
		bodies: okBody("ToDoDeliveryList"), errors: v2Errors(401, 404, 405, 422, 500)},
		handle: (*Server).listToDoDeliveries},
	{operation: operation{method: http.MethodGet, path: "/on-call-contacts", id: "listOnCallContacts", summary: "List on-call contacts",
		description: "Returns one page of the on-call contacts of the accounts you are a member of (admins see every " +
			"account's), by escalation level, then oldest first, each with its delivery methods. Secrets are " +
			"never returned: basic_auth shows the username only, headers show their names with the value " +
			"\"[write-only]\", and signing_secret_set says whether requests are signed. A method that its " +
			"endpoint disabled with a 410 answer shows disabled_at and disabled_reason. Deleted contacts are " +
			"not listed. The response carries meta and a Link header with rel=\"next\" and rel=\"prev\" where " +
			"those pages exist. Every invalid or repeated parameter is reported in one 422.",
		scopes: []string{answerdesk.ScopeDispatchRead},
		query:  paging(answerdesk.DefaultContactPageSize, answerdesk.MaxContactPageSize),
		bodies: okBody("OnCallContactList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listOnCallContacts},
	{operation: operation{method: http.MethodPost, path: "/on-call-contacts", id: "createOnCallContact", summary: "Create an on-call contact",
		description: "Creates an on-call contact on one of your accounts, with its delivery methods, and returns it. " +
			"Success is 200, not 201. A delivery method of type `external_api` pushes every new message of " +
			"the account to your endpoint with an HTTP `POST`. Secrets are write-only: the response shows " +
			"`basic_auth.username` but never the password, each configured header with the value " +
			"`[write-only]`, and `signing_secret_set` instead of the signing secret. A contact cannot be " +
			"changed: create its replacement, then delete it.\n\nThe body is one flat JSON object (no wrapper). " +
			"Every invalid property is reported in one 422 whose `errors[].field` names it: " +
			"`delivery_methods[0].url`, `delivery_methods[0].data[1].value`. `account_number` must be an " +
			"account you are an admin or a member of; any other is the same 422 as an unknown " +
			"one.\n\n**Escalation.** A new message goes to every enabled delivery method of every contact at " +
			"the lowest escalation level (1 to 10) of its account that has contacts; a message created with " +
			"`escalation_level_id` N starts at the first level from N up. If it is not acknowledged (`PATCH " +
			"/api/v2/messages/{id}/acknowledge`) within that level's `escalate_after_minutes` (the shortest " +
			"of the level's contacts, default 15), it is also sent to the next level up that has contacts, " +
			"and so on: the message's `escalation_level_id` shows the level reached, `escalation_counter` " +
			"counts the escalations and `next_escalation_at` is when the next is due (null at the last " +
			"level). Acknowledging stops escalation; deliveries already under way still complete. The " +
			"message's `status` moves from `new` to `delivered`, with `delivered_at` and `delivered_to` (the " +
			"contact's id), when its first delivery succeeds.\n\n**The request your endpoint receives.** A " +
			"`POST` to `url` with these headers:\n\n| Header | Value |\n|---|---|\n| `Content-Type` | " +
			"`application/json` (payload_type JSON) or `application/x-www-form-urlencoded` (FORM); a " +
			"configured Content-Type header replaces it. |\n| `Idempotency-Key` | The delivery's `uuid`: the " +
			"same on every retry and replay of the delivery. Delivery is at least once, so deduplicate on it. " +
			"|\n| `User-Agent` | `answerdesk-dispatch/<version>` |\n| `Authorization` | `Basic " +
			"<base64(username:password)>` when `basic_auth` is set (it replaces a configured Authorization " +
			"header). |\n| `webhook-id`, `webhook-timestamp`, `webhook-signature` | Only with a " +
			"`signing_secret`; see Signing. |\n| your `headers` | As configured, e.g. `X-Api-Key`. |\n\nThe body " +
			"holds the method's `data` fields in their configured order, each value with its merge variables " +
			"resolved; every value is a string.\n- JSON: one flat JSON object, " +
			"`{\"message_id\":\"4182\",\"caller\":\"Dana Reyes\",\"callback\":\"+15555550123\",\"text\":\"Leak under the " +
			"kitchen sink\"}`.\n- FORM: " +
			"`message_id=4182&caller=Dana+Reyes&callback=%2B15555550123&text=Leak+under+the+kitchen+sink`.\n\nA " +
			"field name configured twice appears once, at its first position, with its last value. A rendered " +
			"body is at most 256 KiB: every field keeps its name, values are expanded in order within that " +
			"budget and the value that reaches it is cut at a UTF-8 boundary (later ones get what is left, " +
			"often nothing), with a warning on the delivery; expansion stops there, so a value repeating " +
			"`{{message.content}}` costs at most the budget. The body is rendered once, when the delivery is " +
			"created (at the message's creation, or at its escalation to the contact's level), so every retry " +
			"and replay sends the same bytes. Deliveries to one endpoint may arrive out of order.\n\n**Merge " +
			"variables.** Write `{{variable}}` anywhere in a `data` value; text around it is kept " +
			"(`{{message.first_name}} {{message.last_name}}`).\n\n| Variable | Resolves to |\n|---|---|\n| " +
			"`{{message.<field>}}` | Any property of the Message object as this API returns it (snake_case), " +
			"e.g. `{{message.id}}`, `{{message.uuid}}`, `{{message.content}}`, `{{message.first_name}}`, " +
			"`{{message.caller_id}}`, `{{message.phone}}`, `{{message.origin}}`, `{{message.is_emergency}}`, " +
			"`{{message.created_at}}`. Strings as they are, numbers as JSON writes them (`4182`), booleans " +
			"`true` or `false`, null as an empty string; `{{message.answers}}` is the whole answers object as " +
			"compact JSON. |\n| `{{message.answers.<question>}}` | The answer to the named script question, " +
			"e.g. `{{message.answers.Callback number}}` (the exact name, else a case-insensitive match). An " +
			"empty string when the message has no such answer, with a warning on the delivery. |\n| " +
			"`{{account.number}}` | Number of the message's account. |\n| `{{account.name}}` | Name of the " +
			"message's account. |\n| `{{contact.name}}` | `name` of the on-call contact the delivery is for. " +
			"|\n\nSpaces inside the braces are ignored (`{{ message.content }}`), names are case-sensitive, a " +
			"resolved value is never expanded again, and an unclosed `{{` is literal text. Any other variable " +
			"is accepted here and renders as an empty string, as does a question the message has no answer " +
			"to; the delivery's `warnings` name each.\n\n**Retries.** Each attempt times out after 10 seconds. " +
			"A 2xx answer delivers. Network errors, time-outs, 408, 429 and 5xx are retried after 5 s, 30 s, " +
			"2 min, 10 min, 30 min, 1 h, 3 h and 6 h (each plus or minus 20 % at random): at most 9 attempts " +
			"over about 11 hours. A `Retry-After` on a retried answer (delay-seconds or an HTTP date, at most " +
			"24 h) replaces that wait. After the last retry the delivery is `failed`. Every other answer " +
			"fails at once, without retry: 3xx (redirects are not followed) and the other 4xx. 410 Gone also " +
			"disables the method (`disabled_at`, `disabled_reason`): it gets no further deliveries; create a " +
			"new contact to use the endpoint again. Destinations on loopback, private, link-local, CGNAT or " +
			"cloud-metadata addresses are refused, checked on the address actually dialled (so DNS rebinding " +
			"does not get around it), and the delivery fails at once; an attempt without an answer records " +
			"its error as a category and the configured host (`dns: no such host hooks.example.com`, " +
			"`connect: refused by hooks.example.com`, `timeout after 10s waiting for hooks.example.com`, " +
			"`blocked: hooks.example.com resolves to a private, loopback or reserved address, which " +
			"deliveries may not reach`), never the resolved address; the server's operator can allow them " +
			"with `--dispatch-allow-private`. Follow deliveries with `GET /api/v2/dispatch-deliveries` and " +
			"send one again with `POST /api/v2/dispatch-deliveries/{id}/replay`.\n\n**Signing.** With a " +
			"`signing_secret` each attempt carries the Standard Webhooks headers `webhook-id` (the delivery's " +
			"uuid), `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature`: `v1,` followed " +
			"by the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the " +
			"base64-decoded part of the secret after `whsec_`. Verify it over the raw body with any Standard " +
			"Webhooks library, and refuse timestamps far from your clock (each attempt is signed " +
			"afresh).\n\n**Limits.** An account has at most 100 on-call contacts (the 101st is a 422 on " +
			"`account_number`); `name` at most 200 characters; `escalation_level` 1 to 10 (default 1); " +
			"`escalate_after_minutes` 1 to 1440 (default 15); 1 to 10 `delivery_methods`. Per method: `url` " +
			"absolute http or https, at most 2048 characters, without credentials (use `basic_auth`); " +
			"`payload_type` `JSON` (default) or `FORM`, any case; 1 to 50 `data` fields (name 1 to 200 bytes, " +
			"value at most 10000); `basic_auth` with both username (without `:`) and password, or neither; at " +
			"most 20 `headers` (HTTP token names of at most 100 characters, one-line values of at most 4096), " +
			"none of those the dispatcher sets or the connection owns: Host, Content-Length, " +
			"Transfer-Encoding, Connection, Keep-Alive, Idempotency-Key, User-Agent, TE, Trailer, Upgrade, " +
			"Expect, and every Webhook-* and Proxy-* name (any case); `signing_secret` `whsec_` and the " +
			"base64 of 24 to 64 bytes, or empty for none.",
		scopes: []string{answerdesk.ScopeDispatchWrite},
		bodies: okBody("OnCallContactResponse"), errors: with(v2Errors(400, 401, 405, 413, 422, 500), http.StatusUnprocessableEntity, "OnCallContactUnprocessable")},
		handle: (*Server).createOnCallContact},
	{operation: operation{method: http.MethodDelete, path: "/on-call-contacts/{id}", id: "deleteOnCallContact", summary: "Delete an on-call contact",
		description: "Deletes an on-call contact and returns it as it was, as {\"data\": contact} with status 200. From " +
			"then on new messages and escalations skip it; its deliveries still waiting for an attempt are " +
			"stopped and marked failed, and its past deliveries stay in the delivery log. No request body. A " +
			"contact of an account you cannot see is 404, as is an id that is not a positive integer; " +
			"deleting twice is 404 the second time.",
		scopes: []string{answerdesk.ScopeDispatchWrite},
		bodies: okBody("OnCallContactResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).deleteOnCallContact},
	{operation: operation{method: http.MethodGet, path: "/dispatch-deliveries", id: "listDispatchDeliveries", summary: "List dispatch deliveries",
		description: "Returns one page of the deliveries of the accounts you are a member of (admins see every " +
			"account's), newest first (id descending), each with every attempt (time, HTTP status, duration, " +
			"error, the start of the answer's body). A delivery is one message pushed to one delivery method " +
			"of one on-call contact at one escalation level; its uuid is the Idempotency-Key (and webhook-id) " +
			"your endpoint receives. status is pending while it waits for an attempt or a retry " +
			"(next_attempt_at says when) or is being sent, delivered once an attempt got a 2xx answer, failed " +
			"when retries ran out or the answer is not retried (see createOnCallContact for the retry " +
			"policy). warnings lists problems found when the body was rendered, such as a question the " +
			"message has no answer to. Filter by message_id and status. The response carries meta and a Link " +
			"header with rel=\"next\" and rel=\"prev\" where those pages exist. Every invalid or repeated " +
			"parameter is reported in one 422.",
		scopes: []string{answerdesk.ScopeDispatchRead},
		query: append([]queryParam{{name: "message_id", schema: map[string]any{"type": "integer", "format": "int64", "minimum": 1}}, enumParam("status", answerdesk.DispatchStatuses)},
			paging(answerdesk.DefaultDeliveryPageSize, answerdesk.MaxDeliveryPageSize)...),
		bodies: okBody("DispatchDeliveryList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listDispatchDeliveries},
	{operation: operation{method: http.MethodPost, path: "/dispatch-deliveries/{id}/replay", id: "replayDispatchDelivery", summary: "Replay a dispatch delivery",
		description: "Sends a delivery again now, whatever its status: it becomes pending with its next attempt due at " +
			"once (within about a second) and a fresh retry schedule, and the response shows it so. A failed " +
			"delivery gets the full retry policy again; a delivered one is sent once more; a pending one " +
			"waiting for a retry is tried now. It is the same request as before: the same body (rendered when " +
			"the delivery was created), the same uuid in Idempotency-Key and webhook-id, so an endpoint that " +
			"deduplicates on them treats a replay of a delivery it already accepted as a duplicate; the " +
			"signature is made afresh with a new webhook-timestamp. Earlier attempts stay in attempts and new " +
			"ones are appended. No request body. While an attempt of the delivery is in flight the replay is " +
			"refused with 409 conflict: send it again once that attempt is recorded (at most 10 seconds). A " +
			"delivery of an account you cannot see is 404, as is an id that is not a positive integer. " +
			"Replays are rate limited to 30 per minute per account (the delivery's account, whoever asks): " +
			"beyond that, 429 rate_limited with Retry-After. The body replayed is the one stored, at most 256 " +
			"KiB.",
		scopes: []string{answerdesk.ScopeDispatchWrite},
		bodies: okBody("DispatchDeliveryResponse"), errors: v2Errors(401, 404, 405, 409, 429, 500)},
		handle: (*Server).replayDispatchDelivery},
	{operation: operation{method: http.MethodGet, path: "/me", id: "getMe", summary: "Get the caller",
		description: "Returns the user the bearer token belongs to: id, email, whether they are an admin, and the " +
			"accounts they are a member of (by number). Clients use it to check a token and to label a " +
			"connection with the user's email, as the Zapier app does. An admin sees and may use every " +
			"account, including accounts not listed here; GET /api/v2/accounts lists every account the caller " +
			"can see.",

		bodies: okBody("MeResponse"), errors: v2Errors(401, 405, 500)},
		handle: (*Server).getMe},
	{operation: operation{method: http.MethodGet, path: "/accounts", id: "listAccounts", summary: "List accounts",
		description: "Returns one page of the accounts you can see (the accounts you are a member of; admins see every " +
			"account), by account number, each with its time zone and what its To Dos may send from: " +
			"sms_numbers, the SMS-enabled numbers that are valid values of an SMS To Do's from, and " +
			"sending_domains, the authenticated email-sending domains an email To Do's from_email must be on. " +
			"Use it to offer valid choices before POST /api/v2/to-dos instead of learning them from a 422. " +
			"The response carries meta and a Link header with rel=\"next\" and rel=\"prev\" where those pages " +
			"exist. Every invalid parameter is reported in one 422.",

		query:  paging(answerdesk.DefaultAccountPageSize, answerdesk.MaxAccountPageSize),
		bodies: okBody("AccountList"), errors: v2Errors(401, 405, 422, 500)},
		handle: (*Server).listAccounts},
	{operation: operation{method: http.MethodPost, path: "/accounts", id: "createAccount", summary: "Create an account",
		description: "Creates a customer account, optionally with its SMS-enabled numbers and authenticated sending " +
			"domains, and returns it. Success is 200, not 201. number must be 1 to 20 digits and unique (a " +
			"taken number is a 422 on number); time_zone defaults to America/New_York. Admin only: any other " +
			"token is 403 forbidden.",

		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 405, 413, 422, 500)},
		handle: (*Server).createAccount},
	{operation: operation{method: http.MethodGet, path: "/accounts/{number}", id: "getAccount", summary: "Get an account",
		description: "Returns one account you can see (a member's account; admins see every account), with its SMS " +
			"numbers and sending domains.",

		bodies: okBody("AccountResponse"), errors: v2Errors(401, 404, 405, 500)},
		handle: (*Server).getAccount},
	{operation: operation{method: http.MethodPatch, path: "/accounts/{number}", id: "updateAccount", summary: "Update an account",
		description: "Changes the account's name or time zone; fields left out stay as they are. Admin only: any other " +
			"token is 403 forbidden.",

		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).updateAccount},
	{operation: operation{method: http.MethodPost, path: "/accounts/{number}/sms-numbers", id: "addSmsNumber", summary: "Add an SMS number",
		description: "Makes a number an SMS-enabled number of the account, so SMS To Dos may send from it, and returns " +
			"the account. Adding it twice is a no-op; a number of another account is a 422. Admin only: any " +
			"other token is 403 forbidden.",

		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).addSMSNumber},
	{operation: operation{method: http.MethodDelete, path: "/accounts/{number}/sms-numbers/{sms_number}", id: "removeSmsNumber", summary: "Remove an SMS number",
		description: "Stops the number sending SMS To Dos and returns the account. To Dos already created keep it. 404 " +
			"when the account has no such SMS number. Admin only: any other token is 403 forbidden.",

		bodies: okBody("SMSNumberResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).removeSMSNumber},
	{operation: operation{method: http.MethodPost, path: "/accounts/{number}/sending-domains", id: "addSendingDomain", summary: "Add a sending domain",
		description: "Adds an authenticated email-sending domain (the admin who adds it vouches for its SPF and DKIM), " +
			"so email To Dos may send from addresses on it, and returns the account. Adding it twice is a " +
			"no-op. Admin only: any other token is 403 forbidden.",

		bodies: okBody("AccountResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).addSendingDomain},
	{operation: operation{method: http.MethodDelete, path: "/accounts/{number}/sending-domains/{domain}", id: "removeSendingDomain", summary: "Remove a sending domain",
		description: "Removes the sending domain and returns the account; new email To Dos can no longer send from it. " +
			"404 when the account has no such domain. Admin only: any other token is 403 forbidden.",

		bodies: okBody("SendingDomainResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).removeSendingDomain},
	{operation: operation{method: http.MethodGet, path: "/accounts/{number}/email-blacklist", id: "listBlacklistedEmails", summary: "List blacklisted addresses",
		description: "Returns one page of the account's blacklisted addresses, by address, with the time each was " +
			"added. An account has at most 10,000; the account object does not embed them. Admin only: any " +
			"other token is 403 forbidden; an unknown account is 404.",

		query:  paging(answerdesk.DefaultBlacklistPageSize, answerdesk.MaxBlacklistPageSize),
		bodies: okBody("BlacklistEntryList"), errors: v2Errors(401, 403, 404, 405, 422, 500)},
		handle: (*Server).listBlacklistedEmails},
	{operation: operation{method: http.MethodPost, path: "/accounts/{number}/email-blacklist", id: "addBlacklistedEmail", summary: "Add a blacklisted address",
		description: "Blacklists an address as a To Do's from_email and returns the entry. Each account has its own " +
			"blacklist: the address is refused as this account's from_email only. Adding it twice is a no-op. " +
			"Admin only: any other token is 403 forbidden.",

		bodies: okBody("BlacklistEntryResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).addBlacklistedEmail},
	{operation: operation{method: http.MethodDelete, path: "/accounts/{number}/email-blacklist/{email}", id: "removeBlacklistedEmail", summary: "Remove a blacklisted address",
		description: "Lifts the blacklisting of an address and returns the entry as it was. 404 when it is not " +
			"blacklisted. Admin only: any other token is 403 forbidden.",

		bodies: okBody("BlacklistEntryResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).removeBlacklistedEmail},
	{operation: operation{method: http.MethodGet, path: "/users", id: "listUsers", summary: "List users",
		description: "Returns one page of every user, by id, with their memberships and whether they are disabled. The " +
			"response carries meta and a Link header with rel=\"next\" and rel=\"prev\" where those pages exist. " +
			"Admin only: any other token is 403 forbidden.",

		query:  paging(answerdesk.DefaultUserPageSize, answerdesk.MaxUserPageSize),
		bodies: okBody("UserList"), errors: v2Errors(401, 403, 405, 422, 500)},
		handle: (*Server).listUsers},
	{operation: operation{method: http.MethodPost, path: "/users", id: "createUser", summary: "Create a user",
		description: "Creates a user, a member of the given accounts, and returns them. Without a password the user " +
			"cannot sign in on the web until one is set with answerdesk user update --password-stdin; create " +
			"them an API token with answerdesk token create. A taken email or an unknown account number is a " +
			"422. Admin only: any other token is 403 forbidden.",

		bodies: okBody("UserResponse"), errors: v2Errors(400, 401, 403, 405, 413, 422, 500)},
		handle: (*Server).createUser},
	{operation: operation{method: http.MethodGet, path: "/users/{id}", id: "getUser", summary: "Get a user",
		description: "Returns one user by id or email. Admin only: any other token is 403 forbidden.",

		bodies: okBody("UserResponse"), errors: v2Errors(401, 403, 404, 405, 500)},
		handle: (*Server).getUser},
	{operation: operation{method: http.MethodPatch, path: "/users/{id}", id: "updateUser", summary: "Update a user",
		description: "Changes a user's memberships (accounts replaces them), admin flag or disabled state. Disabling " +
			"takes effect at once: the user's API tokens stop working, their OAuth grants are revoked and " +
			"their web sessions end; enabling again makes their API tokens work again. An admin cannot " +
			"disable their own user or take away their own admin flag (422). Admin only: any other token is " +
			"403 forbidden.",

		bodies: okBody("UserResponse"), errors: v2Errors(400, 401, 403, 404, 405, 413, 422, 500)},
		handle: (*Server).updateUser},
	{operation: operation{method: http.MethodGet, path: "/openapi.json", id: "getOpenApiDocument", summary: "Get this OpenAPI document",
		description: "Returns the OpenAPI 3.1 document of the customer API. Needs no credentials.",

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
