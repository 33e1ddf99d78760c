package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/rest"
)

// TestOpenAPIV2ResponsesMatchDocument sends requests of the customer API to the live router
// (request bodies are the document's own examples where it gives them) and checks every
// answer against the document the server serves: the status is one the operation
// documents, and the body is valid against that response's schema (strictly: a property the
// schema does not list fails).
func TestOpenAPIV2ResponsesMatchDocument(t *testing.T) {
	app := testapp.New(t)
	_, msg := app.CreateCall(t, app.Alice, app.Acme, testapp.Start, "Sales", true)
	app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{"content": "Leak in the basement", "first_name": "Dana", "email": "dana@example.com"})
	r := app.Do(t, http.MethodGet, "/api/v2/openapi.json", "", nil)
	var doc map[string]any
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatalf("GET /api/v2/openapi.json: %d %v", r.Status, err)
	}
	paths, _ := doc["paths"].(map[string]any)
	op := func(method, template string) map[string]any {
		item, _ := paths[template].(map[string]any)
		o, _ := item[strings.ToLower(method)].(map[string]any)
		return o
	}
	// example is the first example of the operation's request body.
	example := func(method, template string) any {
		rb, _ := op(method, template)["requestBody"].(map[string]any)
		c, _ := rb["content"].(map[string]any)
		media, _ := c["application/json"].(map[string]any)
		if ex, ok := media["example"]; ok {
			return ex
		}
		exs, _ := media["examples"].(map[string]any)
		for _, name := range []string{"call", "json"} { // the examples these fixtures can satisfy
			if ex, ok := exs[name].(map[string]any); ok {
				return ex["value"]
			}
		}
		return nil
	}
	alice, admin := app.Alice.Token, app.Admin.Token
	check := func(method, template, path, token string, body any, want int) map[string]any {
		t.Helper()
		at := fmt.Sprintf("%s %s", method, path)
		o := op(method, template)
		if o == nil {
			t.Errorf("%s: %s %s is not documented", at, method, template)
			return nil
		}
		resp := app.Do(t, method, path, token, body)
		if resp.Status != want {
			t.Errorf("%s: status %d, want %d: %.300s", at, resp.Status, want, resp.Body)
		}
		responses, _ := o["responses"].(map[string]any)
		res, ok := responses[fmt.Sprint(resp.Status)].(map[string]any)
		if !ok {
			t.Errorf("%s: status %d is not documented", at, resp.Status)
			return nil
		}
		if ref, ok := res["$ref"].(string); ok {
			comps, _ := doc["components"].(map[string]any)
			rs, _ := comps["responses"].(map[string]any)
			res, _ = rs[strings.TrimPrefix(ref, "#/components/responses/")].(map[string]any)
		}
		c, _ := res["content"].(map[string]any)
		media, _ := c["application/json"].(map[string]any)
		var v any
		if err := json.Unmarshal(resp.Body, &v); err != nil {
			t.Errorf("%s: not JSON: %v", at, err)
			return nil
		}
		for _, e := range rest.OAValidate(doc, media["schema"], v, at) {
			t.Error(e)
		}
		m, _ := v.(map[string]any)
		return m
	}
	data := func(m map[string]any) map[string]any { d, _ := m["data"].(map[string]any); return d }
	id := fmt.Sprint(msg.ID)

	check("GET", "/api/v2/me", "/api/v2/me", alice, nil, 200)
	check("GET", "/api/v2/messages", "/api/v2/messages", alice, nil, 200)
	check("GET", "/api/v2/messages", "/api/v2/messages?page_size=0", alice, nil, 422)
	check("GET", "/api/v2/messages", "/api/v2/messages", "", nil, 401)
	check("GET", "/api/v2/messages/recents", "/api/v2/messages/recents", alice, nil, 200)
	check("GET", "/api/v2/messages/{id}", "/api/v2/messages/"+id, alice, nil, 200)
	check("GET", "/api/v2/messages/{id}", "/api/v2/messages/"+msg.UUID, alice, nil, 200)
	check("GET", "/api/v2/messages/{id}", "/api/v2/messages/999999", alice, nil, 404)
	check("GET", "/api/v2/messages/{id}/call-recording", "/api/v2/messages/"+id+"/call-recording", alice, nil, 200)
	check("PATCH", "/api/v2/messages/{id}/mark-as-read", "/api/v2/messages/"+id+"/mark-as-read", alice, nil, 200)
	check("PATCH", "/api/v2/messages/{id}/mark-as-unread", "/api/v2/messages/"+id+"/mark-as-unread", alice, nil, 200)
	check("PATCH", "/api/v2/messages/{id}/acknowledge", "/api/v2/messages/"+id+"/acknowledge", alice, nil, 200)
	check("POST", "/api/v2/messages", "/api/v2/messages", alice, map[string]any{"message": map[string]any{"content": "Call back"}}, 200)
	check("POST", "/api/v2/messages", "/api/v2/messages", alice, map[string]any{"message": map[string]any{}}, 422)
	check("POST", "/api/v2/messages", "/api/v2/messages", alice, "{", 400)
	recs := check("GET", "/api/v2/call-recordings", "/api/v2/call-recordings", alice, nil, 200)
	if list, _ := recs["data"].([]any); len(list) > 0 {
		rid := fmt.Sprint(list[0].(map[string]any)["id"])
		check("GET", "/api/v2/call-recordings/{id}", "/api/v2/call-recordings/"+rid, alice, nil, 200)
	}
	check("GET", "/api/v2/call-recordings", "/api/v2/call-recordings?sample=true", alice, nil, 200)

	toDo := data(check("POST", "/api/v2/to-dos", "/api/v2/to-dos", alice, example("POST", "/api/v2/to-dos"), 200))
	tid := fmt.Sprint(toDo["id"])
	check("GET", "/api/v2/to-dos", "/api/v2/to-dos", alice, nil, 200)
	check("GET", "/api/v2/to-dos/{id}", "/api/v2/to-dos/"+tid, alice, nil, 200)
	check("GET", "/api/v2/to-dos/{id}/deliveries", "/api/v2/to-dos/"+tid+"/deliveries", alice, nil, 200)
	check("PATCH", "/api/v2/to-dos/{id}", "/api/v2/to-dos/"+tid, alice, map[string]any{"name": "Renamed"}, 200)
	check("PATCH", "/api/v2/to-dos/{id}/pause", "/api/v2/to-dos/"+tid+"/pause", alice, nil, 200)
	check("PATCH", "/api/v2/to-dos/{id}/resume", "/api/v2/to-dos/"+tid+"/resume", alice, nil, 200)
	check("DELETE", "/api/v2/to-dos/{id}", "/api/v2/to-dos/"+tid, alice, nil, 200)

	contact := data(check("POST", "/api/v2/on-call-contacts", "/api/v2/on-call-contacts", alice, example("POST", "/api/v2/on-call-contacts"), 200))
	check("GET", "/api/v2/on-call-contacts", "/api/v2/on-call-contacts", alice, nil, 200)
	check("GET", "/api/v2/dispatch-deliveries", "/api/v2/dispatch-deliveries", alice, nil, 200)
	check("DELETE", "/api/v2/on-call-contacts/{id}", fmt.Sprintf("/api/v2/on-call-contacts/%v", contact["id"]), alice, nil, 200)

	check("GET", "/api/v2/accounts", "/api/v2/accounts", alice, nil, 200)
	check("POST", "/api/v2/accounts", "/api/v2/accounts", alice, example("POST", "/api/v2/accounts"), 403)
	check("POST", "/api/v2/accounts", "/api/v2/accounts", admin, example("POST", "/api/v2/accounts"), 200)
	check("GET", "/api/v2/accounts/{number}", "/api/v2/accounts/2001", admin, nil, 200)
	check("PATCH", "/api/v2/accounts/{number}", "/api/v2/accounts/2001", admin, example("PATCH", "/api/v2/accounts/{number}"), 200)
	check("POST", "/api/v2/accounts/{number}/email-blacklist", "/api/v2/accounts/2001/email-blacklist", admin, example("POST", "/api/v2/accounts/{number}/email-blacklist"), 200)
	check("DELETE", "/api/v2/accounts/{number}/email-blacklist/{email}", "/api/v2/accounts/2001/email-blacklist/noreply@cedar.example", admin, nil, 200)
	user := data(check("POST", "/api/v2/users", "/api/v2/users", admin, example("POST", "/api/v2/users"), 200))
	check("GET", "/api/v2/users", "/api/v2/users", admin, nil, 200)
	check("GET", "/api/v2/users/{id}", fmt.Sprintf("/api/v2/users/%v", user["id"]), admin, nil, 200)
	check("PATCH", "/api/v2/users/{id}", fmt.Sprintf("/api/v2/users/%v", user["id"]), admin, example("PATCH", "/api/v2/users/{id}"), 200)
	check("GET", "/api/v2/users", "/api/v2/users", alice, nil, 403)
}
