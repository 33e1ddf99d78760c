package demo

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/store"
)

// demoToDos are the demo To Dos (the demo data of Getting started: 20), created through ToDoService so they
// obey the same rules as any API client's. The "immediately" ones are delivered (to the
// outbox, by default) as soon as the server starts, so last_delivery has something to show.
var demoToDos = []struct{ owner, body string }{
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"sms","name":"Technician on the way","from":"+15550101001","contact":"+12125550143","message_text":"Acme Plumbing: your technician Luis is on the way and will arrive in about 30 minutes.","schedule":{"rule":"immediately"}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"email","name":"Estimate follow-up","contact":"dana.ruiz@mail.example","from_email":"office@acme.example","sender_name":"Acme Plumbing","subject":"Your water heater estimate","message_text":"Hi Dana, thanks for calling Acme Plumbing. Your estimate for the water heater replacement is attached to your account. Reply or call us to book a time.","schedule":{"rule":"immediately"}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"call","name":"Call back about the leak","contact":"+16465550111","instructions":"Call Mr. Okafor back about the leak under his kitchen sink and offer the first slot tomorrow morning.","schedule":{"rule":"immediately"}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"sms","name":"Daily on-call reminder","from":"5550101001","contact":"+19175550150","message_text":"Reminder: you are the on-call plumber tonight from 6 PM. Keep your phone on.","schedule":{"frequency":"daily","times":["17:30"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"email","name":"Weekly schedule summary","contact":"dispatch@acme.example","from_email":"noreply@acme.example","sender_name":"Acme Answering","subject":"Next week's service calls","message_text":"Here is the list of service calls booked for next week. Please confirm technician assignments by Friday noon.","schedule":{"frequency":"weekly","days":["friday"],"times":["08:00"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"call","name":"Monday supplier check","instructions":"Call the parts supplier and confirm the order of copper fittings for the week.","schedule":{"frequency":"weekly","days":["monday"],"times":["09:15"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"sms","name":"Water heater flush reminders","from":"+15550101001","contact":"+13475550162","message_text":"Acme Plumbing: it's time for your yearly water heater flush. Reply YES and we'll call to book.","schedule":{"frequency":"monthly","days":[1],"times":["10:00"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"email","name":"Invoice reminder","contact":"accounts@oakwood-condos.example","from_email":"billing@acme.example","sender_name":"Acme Plumbing Billing","subject":"Invoice reminder","message_text":"This is a friendly reminder that invoice 2291 for the riser repair is due at the end of the month.","schedule":{"frequency":"monthly","days":[25],"times":["09:00"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"call","name":"Twice-daily voicemail sweep","instructions":"Check the overflow voicemail box and turn each voicemail into a message.","schedule":{"frequency":"daily","times":["07:45","19:45"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"sms","name":"Biweekly drain maintenance","from":"5550101001","contact":"+17185550177","message_text":"Acme Plumbing: your drain maintenance visit is due this week. Call us to pick a time.","schedule":{"frequency":"weekly","interval":2,"days":["tuesday","thursday"],"times":["11:00"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"email","name":"Quarterly backflow test notice","contact":"facilities@riverside-school.example","from_email":"office@acme.example","subject":"Backflow test due","message_text":"Your backflow preventer test is due this quarter. We can schedule it at your convenience.","schedule":{"frequency":"monthly","interval":3,"days":[15],"times":["08:30"]}}`},
	{"owner@acme.example", `{"account_number":"1001","delivery_type":"call","name":"Friday emergency roster","contact":"+12015550188","instructions":"Call the weekend emergency technician and confirm they have the van keys and the roster.","schedule":{"frequency":"weekly","days":["friday"],"times":["16:00"]}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"sms","name":"Appointment reminder","from":"+15550101002","contact":"+13125550121","message_text":"Birch Dental: reminder of your cleaning tomorrow at 9:00 AM. Reply C to confirm or call to reschedule.","schedule":{"rule":"immediately"}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"email","name":"New patient forms","contact":"j.park@mail.example","from_email":"frontdesk@birch.example","sender_name":"Birch Dental","subject":"Your new patient forms","message_text":"Welcome to Birch Dental! Please fill in the new patient forms before your first visit.","schedule":{"rule":"immediately"}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"sms","name":"Daily confirmations","from":"5550101002","contact":"+17735550134","message_text":"Birch Dental: please confirm tomorrow's appointment by replying C.","schedule":{"frequency":"daily","times":["16:00"]}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"call","name":"Lab case check","instructions":"Call the dental lab and check which crowns are ready for pickup.","schedule":{"frequency":"weekly","days":["wednesday"],"times":["14:00"]}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"email","name":"Monthly recall list","contact":"hygiene@birch.example","from_email":"noreply@birch.example","subject":"Recall list","message_text":"Attached is this month's list of patients due for a six-month recall.","schedule":{"frequency":"monthly","days":[1,15],"times":["07:30"]}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"call","name":"After-hours on-call doctor","contact":"+18475550109","instructions":"Call Dr. Birch and confirm she is the on-call dentist for the weekend.","schedule":{"frequency":"weekly","days":["saturday"],"times":["08:00"]}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"sms","name":"Whitening follow-up","from":"+15550101002","contact":"+16305550140","message_text":"Birch Dental: how are your teeth feeling after whitening? Call us with any sensitivity.","schedule":{"frequency":"weekly","interval":4,"days":["monday"],"times":["12:00"]}}`},
	{"owner@birch.example", `{"account_number":"1002","delivery_type":"email","name":"Insurance verification","contact":"billing@birch.example","from_email":"frontdesk@birch.example","subject":"Verify next week's insurance","message_text":"Please verify insurance for next week's new patients before Friday.","schedule":{"frequency":"weekly","days":["thursday"],"times":["10:30"]}}`},
}

// seedThroughServices creates the demo data that goes through the services' own rules:
// To Dos and the on-call contact. Each part is skipped when it exists.
func seedThroughServices(ctx context.Context, db *store.DB, now time.Time, receiverURL string) error {
	if err := seedToDos(ctx, db, now); err != nil {
		return err
	}
	return seedOnCallContact(ctx, db, receiverURL)
}

// demoContact is the demo's on-call contact: an external_api method of account 1001 that
// maps the message onto the fields a receiver would expect; %s is its URL.
const demoContact = `{"account_number": "1001", "name": "Acme dispatch board", "escalation_level": 1,
	"delivery_methods": [{"type": "external_api", "url": %s, "payload_type": "JSON",
	"data": [{"field": "message_id", "value": "{{message.id}}"}, {"field": "caller", "value": "{{message.first_name}} {{message.last_name}}"},
	{"field": "callback", "value": "{{message.answers.Callback number}}"}, {"field": "text", "value": "{{message.content}}"},
	{"field": "account", "value": "{{account.name}} ({{account.number}})"}]}]}`

// unresolvableReceiver is the demo contact's URL when no receiver is given.
const unresolvableReceiver = "https://hooks.acme.example/answerdesk/messages"

func seedOnCallContact(ctx context.Context, db *store.DB, receiverURL string) error {
	if has, err := db.HasOnCallContacts(ctx); err != nil || has {
		return err
	}
	u, err := store.NewUserService(db).FindUserByEmail(ctx, "owner@acme.example")
	if err != nil {
		return err
	}
	c, err := db.CallerForUser(ctx, u.ID, answerdesk.AllScopes)
	if err != nil {
		return err
	}
	url, err := json.Marshal(cmp.Or(receiverURL, unresolvableReceiver))
	if err != nil {
		return err
	}
	in, err := answerdesk.ParseOnCallContactCreate(fmt.Appendf(nil, demoContact, url))
	if err != nil {
		return fmt.Errorf("demo on-call contact: %w", err)
	}
	_, err = store.NewDispatchService(db).CreateOnCallContact(ctx, c, in)
	return err
}

// seedToDos creates the demo To Dos unless the database already has To Dos.
func seedToDos(ctx context.Context, db *store.DB, now time.Time) error {
	if has, err := db.HasToDos(ctx); err != nil || has {
		return err
	}
	saved := db.Now
	db.Now = func() time.Time { return now }
	defer func() { db.Now = saved }()
	svc := store.NewToDoService(db)
	users := store.NewUserService(db)
	for i, d := range demoToDos {
		u, err := users.FindUserByEmail(ctx, d.owner)
		if err != nil {
			return err
		}
		c, err := db.CallerForUser(ctx, u.ID, answerdesk.AllScopes)
		if err != nil {
			return err
		}
		req, err := answerdesk.ParseToDoCreate([]byte(d.body))
		if err != nil {
			return fmt.Errorf("demo to-do %d: %w", i, err)
		}
		if _, err := svc.CreateToDo(ctx, c, req); err != nil {
			return fmt.Errorf("demo to-do %d: %w", i, err)
		}
	}
	return nil
}
