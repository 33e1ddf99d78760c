package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

type toDoList = listBody[answerdesk.ToDo]

// createToDo posts body as user and returns the To Do, failing on any error.
func createToDo(t *testing.T, app *testapp.App, token, body string) answerdesk.ToDo {
	t.Helper()
	r := app.Do(t, "POST", "/api/v2/to-dos", token, body)
	if r.Status != 200 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var got struct{ Data answerdesk.ToDo }
	r.JSON(t, &got)
	return got.Data
}

func TestCreateToDo(t *testing.T) {
	app := testapp.New(t) // 2026-11-20 15:00 UTC: 10:00 in New York
	t.Run("sms_immediately", func(t *testing.T) {
		td := createToDo(t, app, app.Alice.Token, `{"account_number":"1001","delivery_type":"SMS","from":"+15550101001","contact":"(555) 555-0123","message_text":"Your technician is on the way","schedule":{"rule":"immediately"}}`)
		if td.DeliveryType != "sms" || *td.From != "5550101001" || *td.Contact != "+15555550123" || td.AccountNumber != "1001" || td.PhoneID == nil {
			t.Fatalf("to-do %+v", td)
		}
		if td.Name != "2026-11-20T15:00:00.000Z" {
			t.Fatalf("default name %q, want the creation timestamp", td.Name)
		}
		s := td.Schedule
		if s.SchedulableType != "ToDo" || s.SchedulableID != td.ID || s.Rule["rule"] != "immediately" || s.NextOccurrence == nil ||
			!s.NextOccurrence.Equal(testapp.Start) || s.PreviousOccurrence != nil || td.LastDelivery != nil || td.IsSending {
			t.Fatalf("schedule %+v last_delivery %v", s, td.LastDelivery)
		}
	})
	t.Run("email_today_in_account_time_zone", func(t *testing.T) {
		td := createToDo(t, app, app.Alice.Token, `{"account_number":"1001","delivery_type":"email","name":"Reminder","contact":"pat@example.com","message_text":"See you at 3","from_email":"Office@Acme.example","sender_name":"Acme Office","subject":"Appointment","schedule":{"rule":"today","times":["17:00","10:30"]}}`)
		if *td.FromEmail != "office@acme.example" || td.ProviderAuthenticatedDomainID == nil || *td.SenderName != "Acme Office" || td.Name != "Reminder" {
			t.Fatalf("to-do %+v", td)
		}
		want := time.Date(2026, 11, 20, 15, 30, 0, 0, time.UTC) // 10:30 New York
		if !td.Schedule.NextOccurrence.Equal(want) || strings.Join(td.Times, ",") != "17:00,10:30" {
			t.Fatalf("next %v times %v", td.Schedule.NextOccurrence, td.Times)
		}
	})
	t.Run("call_weekly_rrule", func(t *testing.T) {
		td := createToDo(t, app, app.Bob.Token, `{"account_number":"1002","delivery_type":"call","instructions":"Call Dr. Birch's answering line and confirm tomorrow's on-call doctor","schedule":{"frequency":"weekly","days":["friday","monday"],"times":["09:30"]}}`)
		r := td.Schedule.Rule
		if r["rrule"] != "FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,FR;BYHOUR=9;BYMINUTE=30;BYSECOND=0" || r["tz"] != "America/Chicago" {
			t.Fatalf("rule %v", r)
		}
		// Friday 2026-11-20 09:30 Chicago = 15:30 UTC, still ahead at 15:00 UTC.
		if !td.Schedule.NextOccurrence.Equal(time.Date(2026, 11, 20, 15, 30, 0, 0, time.UTC)) {
			t.Fatalf("next %v", td.Schedule.NextOccurrence)
		}
	})
	t.Run("admin_may_use_any_account", func(t *testing.T) {
		createToDo(t, app, app.Admin.Token, `{"account_number":"1002","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately"}}`)
	})

	bad := []struct {
		name, token, body string
		status            int
		code, field       string
	}{
		{"malformed_json", app.Alice.Token, `{"delivery_type":`, 400, "processing_error", ""},
		{"other_account", app.Alice.Token, `{"account_number":"1002","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "account_number"},
		{"unknown_account", app.Alice.Token, `{"account_number":"4242","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "account_number"},
		{"sms_from_not_on_account", app.Alice.Token, `{"account_number":"1001","delivery_type":"sms","from":"+15550101002","contact":"+15555550123","message_text":"x","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "from"},
		{"sms_missing_contact", app.Alice.Token, `{"account_number":"1001","delivery_type":"sms","from":"5550101001","message_text":"x","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "contact"},
		{"email_blacklisted", app.Alice.Token, `{"account_number":"1001","delivery_type":"email","contact":"a@example.com","message_text":"x","from_email":"blocked@acme.example","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "from_email"},
		{"email_unauthenticated_domain", app.Alice.Token, `{"account_number":"1001","delivery_type":"email","contact":"a@example.com","message_text":"x","from_email":"office@birch.example","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "from_email"},
		{"email_bad_contact", app.Alice.Token, `{"account_number":"1001","delivery_type":"email","contact":"not an address","message_text":"x","from_email":"office@acme.example","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "contact"},
		{"today_time_passed", app.Alice.Token, `{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"rule":"today","times":["09:00"]}}`, 422, "invalid_parameter", "schedule.times"},
		{"missing_schedule", app.Alice.Token, `{"account_number":"1001","delivery_type":"call","instructions":"x"}`, 422, "invalid_parameter", "schedule"},
		{"ai_outbound_call_not_released", app.Alice.Token, `{"account_number":"1001","delivery_type":"ai_outbound_call","contact":"+15555550123","instructions":"x","schedule":{"rule":"immediately"}}`, 422, "feature_unavailable", ""},
		// Not released is the answer whatever else the body lacks: completing it would not help.
		{"ai_outbound_call_not_released_incomplete", app.Alice.Token, `{"delivery_type":"ai_outbound_call"}`, 422, "feature_unavailable", ""},
		{"ai_outbound_call_not_released_other_account", app.Alice.Token, `{"account_number":"1002","delivery_type":" AI_Outbound_Call ","schedule":{"rule":"immediately"}}`, 422, "feature_unavailable", ""},
		{"delivery_type_unknown", app.Alice.Token, `{"account_number":"1001","delivery_type":"pigeon","schedule":{"rule":"immediately"}}`, 422, "invalid_parameter", "delivery_type"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			var fields []string
			if tc.field != "" {
				fields = append(fields, tc.field)
			}
			wantError(t, app.Do(t, "POST", "/api/v2/to-dos", tc.token, tc.body), tc.status, tc.code, fields...)
		})
	}
	t.Run("ai_outbound_call_with_feature", func(t *testing.T) {
		app.ToDos.AIOutboundCall = true
		defer func() { app.ToDos.AIOutboundCall = false }()
		td := createToDo(t, app, app.Alice.Token, `{"account_number":"1001","delivery_type":"AI_OUTBOUND_CALL","contact":"+15555550123","instructions":"Confirm the appointment","schedule":{"rule":"immediately"}}`)
		if td.AIAssistantID == nil || *td.AIAssistantID != "asst_acme" {
			t.Fatalf("assistant %v", td.AIAssistantID)
		}
		// Birch has no assistant on its number.
		wantError(t, app.Do(t, "POST", "/api/v2/to-dos", app.Bob.Token, `{"account_number":"1002","delivery_type":"ai_outbound_call","contact":"+15555550123","instructions":"x","schedule":{"rule":"immediately"}}`), 422, "invalid_parameter", "delivery_type")
	})
}

func TestListToDos(t *testing.T) {
	app := testapp.New(t)
	var alice []answerdesk.ToDo
	for i := range 12 {
		app.Clock.Advance(time.Minute)
		alice = append(alice, createToDo(t, app, app.Alice.Token, fmt.Sprintf(`{"account_number":"1001","delivery_type":"call","name":"call %d","instructions":"x","schedule":{"rule":"immediately"}}`, i)))
	}
	bobs := createToDo(t, app, app.Bob.Token, `{"account_number":"1002","delivery_type":"call","instructions":"x","schedule":{"rule":"immediately"}}`)

	var l toDoList
	app.Do(t, "GET", "/api/v2/to-dos", app.Alice.Token, nil).JSON(t, &l)
	if len(l.Data) != 10 || l.Meta.Total != 12 || l.Meta.PageSize != 10 || l.Data[0].ID != alice[11].ID {
		t.Fatalf("page 1: %d items, meta %+v", len(l.Data), l.Meta)
	}
	app.Do(t, "GET", "/api/v2/to-dos?page=2", app.Alice.Token, nil).JSON(t, &l)
	if len(l.Data) != 2 || l.Data[1].ID != alice[0].ID {
		t.Fatalf("page 2: %d items", len(l.Data))
	}
	app.Do(t, "GET", "/api/v2/to-dos?page_size=100", app.Admin.Token, nil).JSON(t, &l)
	if l.Meta.Total != 13 {
		t.Fatalf("admin sees %d", l.Meta.Total)
	}
	for q, field := range map[string]string{"?page=0": "page", "?page_size=0": "page_size", "?page_size=101": "page_size", "?page=x": "page"} {
		wantError(t, app.Do(t, "GET", "/api/v2/to-dos"+q, app.Alice.Token, nil), 422, "invalid_parameter", field)
	}
	wantError(t, app.Do(t, "GET", "/api/v2/to-dos", "", nil), 401, "unauthorized")

	var one struct{ Data answerdesk.ToDo }
	app.Do(t, "GET", fmt.Sprint("/api/v2/to-dos/", alice[3].ID), app.Alice.Token, nil).JSON(t, &one)
	if one.Data.ID != alice[3].ID || one.Data.Name != "call 3" {
		t.Fatalf("get: %+v", one.Data)
	}
	wantError(t, app.Do(t, "GET", fmt.Sprint("/api/v2/to-dos/", bobs.ID), app.Alice.Token, nil), 404, "not_found")
	wantError(t, app.Do(t, "GET", "/api/v2/to-dos/nope", app.Alice.Token, nil), 404, "not_found")
}
