package store_test

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestScopes: every method of every service that takes a Caller (so that an OAuth token
// can reach it) refuses a caller whose credential lacks the scope it needs (EFORBIDDEN
// naming the scope), and serves one that has exactly the scopes it needs. REST and the
// account MCP server both rely on this. The method list is checked against the service
// interfaces by reflection, so a new method without a scope check fails here.
func TestScopes(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		app := testapp.NewOn(t, engine)
		ctx := context.Background()
		full := app.Caller(t, app.Alice)
		newContact := func() *answerdesk.OnCallContactCreate {
			in, err := answerdesk.ParseOnCallContactCreate([]byte(deskContact))
			if err != nil {
				t.Fatal(err)
			}
			return in
		}
		app.CreateOnCallContact(t, app.Alice, deskContact)
		doomed := app.CreateOnCallContact(t, app.Alice, deskContact)
		app.CreateMessage(t, app.Alice, testapp.Start.Add(-2*time.Hour), map[string]any{"content": "Burst pipe"})
		deliveries, _, err := app.Dispatch.FindDispatchDeliveries(ctx, full, answerdesk.DeliveryQuery{Paging: answerdesk.Paging{Page: 1, PageSize: 10}})
		if err != nil || len(deliveries) == 0 {
			t.Fatalf("deliveries: %v %v", deliveries, err)
		}
		rec, msg := app.CreateCall(t, app.Alice, app.Acme, testapp.Start.Add(-time.Hour), "Main", true)
		mid, rid := strconv.FormatInt(msg.ID, 10), strconv.FormatInt(rec.ID, 10)
		toDo, err := answerdesk.ParseToDoCreate([]byte(`{"account_number": "1001", "delivery_type": "call",
	"instructions": "Call the office", "schedule": {"rule": "immediately"}}`))
		if err != nil {
			t.Fatal(err)
		}
		page := answerdesk.Paging{Page: 1, PageSize: 10}
		msgQuery, _ := answerdesk.MessageFilter{}.Validate()
		recQuery, _ := answerdesk.RecordingFilter{}.Validate()

		type scopeCase struct {
			name  string
			needs []string
			call  func(c *answerdesk.Caller) error
		}
		cases := []scopeCase{
			{"FindMessages", []string{answerdesk.ScopeMessagesRead}, func(c *answerdesk.Caller) error {
				_, _, err := app.Messages.FindMessages(ctx, c, msgQuery)
				return err
			}},
			{"RecentMessages", []string{answerdesk.ScopeMessagesRead}, func(c *answerdesk.Caller) error {
				_, err := app.Messages.RecentMessages(ctx, c, 5)
				return err
			}},
			{"FindMessage", []string{answerdesk.ScopeMessagesRead}, func(c *answerdesk.Caller) error {
				_, err := app.Messages.FindMessage(ctx, c, mid)
				return err
			}},
			{"CreateMessage", []string{answerdesk.ScopeMessagesWrite}, func(c *answerdesk.Caller) error {
				_, err := app.Messages.CreateMessage(ctx, c, &answerdesk.MessageCreate{Content: "hello", Origin: answerdesk.OriginAPI})
				return err
			}},
			{"AcknowledgeMessage", []string{answerdesk.ScopeMessagesWrite}, func(c *answerdesk.Caller) error {
				_, err := app.Messages.AcknowledgeMessage(ctx, c, mid)
				return err
			}},
			{"SetMessageRead", []string{answerdesk.ScopeMessagesWrite}, func(c *answerdesk.Caller) error {
				_, err := app.Messages.SetMessageRead(ctx, c, mid, true)
				return err
			}},
			{"FindCallRecordings", []string{answerdesk.ScopeRecordingsRead}, func(c *answerdesk.Caller) error {
				_, _, err := app.Recordings.FindCallRecordings(ctx, c, recQuery)
				return err
			}},
			{"FindCallRecording", []string{answerdesk.ScopeRecordingsRead}, func(c *answerdesk.Caller) error {
				_, err := app.Recordings.FindCallRecording(ctx, c, rid)
				return err
			}},
			{"FindMessageCallRecording", []string{answerdesk.ScopeMessagesRead, answerdesk.ScopeRecordingsRead}, func(c *answerdesk.Caller) error {
				_, err := app.Recordings.FindMessageCallRecording(ctx, c, mid)
				return err
			}},
			{"FindToDos", []string{answerdesk.ScopeTodosRead}, func(c *answerdesk.Caller) error {
				_, _, err := app.ToDos.FindToDos(ctx, c, answerdesk.ToDoFilter{Paging: page})
				return err
			}},
			{"CreateToDo", []string{answerdesk.ScopeTodosWrite}, func(c *answerdesk.Caller) error {
				_, err := app.ToDos.CreateToDo(ctx, c, toDo)
				return err
			}},
			{"FindToDo", []string{answerdesk.ScopeTodosRead}, func(c *answerdesk.Caller) error {
				todos, _, err := app.ToDos.FindToDos(ctx, full, answerdesk.ToDoFilter{Paging: page})
				if err != nil || len(todos) == 0 {
					t.Fatalf("to-dos: %v %v", todos, err)
				}
				_, err = app.ToDos.FindToDo(ctx, c, strconv.FormatInt(todos[0].ID, 10))
				return err
			}},
			{"CreateOnCallContact", []string{answerdesk.ScopeMessagesWrite}, func(c *answerdesk.Caller) error {
				_, err := app.Dispatch.CreateOnCallContact(ctx, c, newContact())
				return err
			}},
			{"FindOnCallContacts", []string{answerdesk.ScopeMessagesRead}, func(c *answerdesk.Caller) error {
				_, _, err := app.Dispatch.FindOnCallContacts(ctx, c, page)
				return err
			}},
			{"DeleteOnCallContact", []string{answerdesk.ScopeMessagesWrite}, func(c *answerdesk.Caller) error {
				_, err := app.Dispatch.DeleteOnCallContact(ctx, c, strconv.FormatInt(doomed.ID, 10))
				return err
			}},
			{"FindDispatchDeliveries", []string{answerdesk.ScopeMessagesRead}, func(c *answerdesk.Caller) error {
				_, _, err := app.Dispatch.FindDispatchDeliveries(ctx, c, answerdesk.DeliveryQuery{Paging: page})
				return err
			}},
			{"ReplayDispatchDelivery", []string{answerdesk.ScopeMessagesWrite}, func(c *answerdesk.Caller) error {
				_, err := app.Dispatch.ReplayDispatchDelivery(ctx, c, strconv.FormatInt(deliveries[0].ID, 10))
				return err
			}},
			// Who the caller is and which accounts they belong to need no particular scope, but
			// a credential narrowed to no scope at all gets nothing (needs nil: any one scope).
			{"FindAccounts", nil, func(c *answerdesk.Caller) error {
				_, _, err := app.Rest.Accounts.FindAccounts(ctx, c, page)
				return err
			}},
			{"FindMe", nil, func(c *answerdesk.Caller) error {
				_, err := app.Rest.Accounts.FindMe(ctx, c)
				return err
			}},
			{"FindToDoDeliveries", []string{answerdesk.ScopeTodosRead}, func(c *answerdesk.Caller) error {
				_, _, err := app.ToDos.FindToDoDeliveries(ctx, c, "1", page)
				return err
			}},
			{"UpdateToDo", []string{answerdesk.ScopeTodosWrite}, func(c *answerdesk.Caller) error {
				p, err := answerdesk.ParseToDoPatch([]byte(`{"name": "Renamed"}`))
				if err != nil {
					return err
				}
				_, err = app.ToDos.UpdateToDo(ctx, c, "1", p)
				return err
			}},
			{"PauseToDo", []string{answerdesk.ScopeTodosWrite}, func(c *answerdesk.Caller) error {
				_, err := app.ToDos.PauseToDo(ctx, c, "1")
				return err
			}},
			{"ResumeToDo", []string{answerdesk.ScopeTodosWrite}, func(c *answerdesk.Caller) error {
				_, err := app.ToDos.ResumeToDo(ctx, c, "1")
				return err
			}},
			{"CancelToDo", []string{answerdesk.ScopeTodosWrite}, func(c *answerdesk.Caller) error {
				_, err := app.ToDos.CancelToDo(ctx, c, "1")
				return err
			}},
		}
		callerType := reflect.TypeFor[*answerdesk.Caller]()
		for _, iface := range []reflect.Type{
			reflect.TypeFor[answerdesk.MessageService](), reflect.TypeFor[answerdesk.CallRecordingService](),
			reflect.TypeFor[answerdesk.ToDoService](), reflect.TypeFor[answerdesk.DispatchService](),
			reflect.TypeFor[answerdesk.AccountService](), reflect.TypeFor[answerdesk.TokenService](),
		} {
			for i := range iface.NumMethod() {
				m := iface.Method(i)
				takesCaller := false
				for j := range m.Type.NumIn() {
					takesCaller = takesCaller || m.Type.In(j) == callerType
				}
				if takesCaller && !slices.ContainsFunc(cases, func(c scopeCase) bool { return c.name == m.Name }) {
					t.Errorf("%s.%s takes a Caller but has no scope case here", iface.Name(), m.Name)
				}
			}
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				with := func(scopes []string) *answerdesk.Caller {
					c, err := app.DB.CallerForUser(ctx, app.Alice.ID, scopes)
					if err != nil {
						t.Fatal(err)
					}
					return c
				}
				// A credential narrowed to nothing is refused by every method.
				if err := tc.call(with([]string{})); answerdesk.ErrorCode(err) != answerdesk.EFORBIDDEN {
					t.Errorf("with no scope: err = %v, want EFORBIDDEN", err)
				}
				needs := tc.needs
				if needs == nil {
					needs = []string{answerdesk.ScopeTodosRead} // any one scope
				}
				if err := tc.call(with(needs)); err != nil {
					t.Fatalf("with scopes %v: %v", needs, err)
				}
				for _, missing := range tc.needs {
					others := slices.DeleteFunc(slices.Clone(answerdesk.AllScopes), func(s string) bool { return s == missing })
					err := tc.call(with(others))
					if answerdesk.ErrorCode(err) != answerdesk.EFORBIDDEN || !strings.Contains(answerdesk.ErrorMessage(err), missing) {
						t.Errorf("without %s: err = %v, want EFORBIDDEN naming %s", missing, err, missing)
					}
				}
			})
		}
	})
}
