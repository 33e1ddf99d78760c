package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// narrowTokens authenticates like the real token service, then keeps only some scopes: a
// credential such as an OAuth access token that was granted less than a customer API token.
type narrowTokens struct {
	answerdesk.TokenService
	scopes []string
}

func (n *narrowTokens) AuthenticateToken(ctx context.Context, plain string) (*answerdesk.Caller, error) {
	c, err := n.TokenService.AuthenticateToken(ctx, plain)
	if err != nil {
		return nil, err
	}
	c.Scopes = n.scopes
	return c, nil
}

// TestScopeForbidden: a credential without the scope an operation needs is answered 403
// forbidden naming the scope; the scopes it has still work.
func TestScopeForbidden(t *testing.T) {
	app := testapp.New(t)
	msg := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{"content": "hello"})
	app.Rest.Tokens = &narrowTokens{TokenService: app.Rest.Tokens, scopes: []string{answerdesk.ScopeMessagesRead, answerdesk.ScopeTodosRead}}

	for _, tc := range []struct {
		method, path string
		body         any
		missing      string // "" when allowed
	}{
		{"GET", "/api/v2/messages", nil, ""},
		{"GET", "/api/v2/messages/" + msg.UUID, nil, ""},
		{"GET", "/api/v2/to-dos", nil, ""},
		{"PATCH", "/api/v2/messages/" + msg.UUID + "/acknowledge", nil, answerdesk.ScopeMessagesWrite},
		{"PATCH", "/api/v2/messages/" + msg.UUID + "/mark-as-read", nil, answerdesk.ScopeMessagesWrite},
		{"POST", "/api/v2/messages", map[string]any{"message": map[string]any{"content": "hi"}}, answerdesk.ScopeMessagesWrite},
		{"GET", "/api/v2/call-recordings", nil, answerdesk.ScopeRecordingsRead},
		{"GET", "/api/v2/messages/" + msg.UUID + "/call-recording", nil, answerdesk.ScopeRecordingsRead},
		{"POST", "/api/v2/to-dos", map[string]any{"account_number": "1001", "delivery_type": "call", "instructions": "x",
			"schedule": map[string]any{"rule": "immediately"}}, answerdesk.ScopeTodosWrite},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := app.Do(t, tc.method, tc.path, app.Alice.Token, tc.body)
			if tc.missing == "" {
				if r.Status != http.StatusOK {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				return
			}
			e := wantError(t, r, http.StatusForbidden, "forbidden")
			if !strings.Contains(e.Message, tc.missing) {
				t.Errorf("message %q does not name the scope %s", e.Message, tc.missing)
			}
		})
	}
	// Nothing was changed by the refused writes.
	if r := app.Do(t, "GET", "/api/v2/messages/"+msg.UUID, app.Alice.Token, nil); !strings.Contains(string(r.Body), `"status":"new"`) ||
		!strings.Contains(string(r.Body), `"read":false`) {
		t.Errorf("message changed by refused writes: %s", r.Body)
	}
}

// TestDeclaredScopes: every operation the document gives scopes (its security) answers 403
// naming each of them to a credential with every other scope, and no 403 to a credential
// with exactly those: the declarations, which the document and the read cache take the
// scopes from, say what the services check.
func TestDeclaredScopes(t *testing.T) {
	app := testapp.New(t)
	narrow := &narrowTokens{TokenService: app.Rest.Tokens}
	app.Rest.Tokens = narrow
	var doc struct {
		Paths map[string]map[string]json.RawMessage
	}
	r := app.Do(t, "GET", "/api/v2/openapi.json", "", nil)
	r.JSON(t, &doc)
	declared := 0
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string                `json:"operationId"`
				Security    []map[string][]string `json:"security"`
			}
			if json.Unmarshal(raw, &op) != nil || len(op.Security) == 0 || len(op.Security[0]["bearerAuth"]) == 0 {
				continue // path-level parameters, or an operation any credential may call
			}
			declared++
			scopes := op.Security[0]["bearerAuth"]
			url := strings.NewReplacer("{id}", "999999").Replace(path)
			// A create parses its body before the service checks the scope: these are valid.
			body := map[string]any{
				"createMessage": map[string]any{"message": map[string]any{"content": "hi"}},
				"createToDo": map[string]any{"account_number": "1001", "delivery_type": "call", "instructions": "x",
					"schedule": map[string]any{"rule": "immediately"}},
				"createOnCallContact": `{"account_number":"1001","name":"Scoped","delivery_methods":[{"url":"https://hooks.example.com/x",
					"data":[{"field":"b","value":"{{message.content}}"}]}]}`,
			}[op.OperationID]
			if body == nil && (method == "post" || method == "patch") {
				body = map[string]any{}
			}
			t.Run(op.OperationID, func(t *testing.T) {
				for _, missing := range scopes {
					narrow.scopes = slices.DeleteFunc(slices.Clone(answerdesk.AllScopes), func(s string) bool { return s == missing })
					r := app.Do(t, strings.ToUpper(method), url, app.Alice.Token, body)
					if e := wantError(t, r, http.StatusForbidden, "forbidden"); !strings.Contains(e.Message, missing) {
						t.Errorf("without %s: %q does not name it", missing, e.Message)
					}
				}
				narrow.scopes = scopes
				if r := app.Do(t, strings.ToUpper(method), url, app.Alice.Token, body); r.Status == http.StatusForbidden {
					t.Errorf("with exactly %v: 403 %s", scopes, r.Body)
				}
			})
		}
	}
	if declared < 20 {
		t.Errorf("%d operations declare scopes; the customer API's messages, recordings, To Dos and dispatch operations all do", declared)
	}
}
