package store_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// TestScopes: every method of the message, recording and To Do services refuses a caller
// whose credential lacks the scope it needs (EFORBIDDEN naming the scope), and serves one
// that has exactly the scopes it needs. REST and the account MCP server both rely on this.
func TestScopes(t *testing.T) {
	app := testapp.New(t)
	ctx := context.Background()
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

	for _, tc := range []struct {
		name  string
		needs []string
		call  func(c *answerdesk.Caller) error
	}{
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			with := func(scopes []string) *answerdesk.Caller {
				c, err := app.DB.CallerForUser(ctx, app.Alice.ID, scopes)
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			if err := tc.call(with(tc.needs)); err != nil {
				t.Fatalf("with scopes %v: %v", tc.needs, err)
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
}
