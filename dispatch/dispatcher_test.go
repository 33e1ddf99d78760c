package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// receiver is a customer endpoint: it records each request and answers with the next
// scripted status (the last one repeats).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*receivedRequest
	statuses []int
	header   http.Header // extra response headers
}

type receivedRequest struct {
	header http.Header
	body   []byte
	user   string
	pass   string
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{statuses: statuses, header: http.Header{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		user, pass, _ := req.BasicAuth()
		r.mu.Lock()
		r.requests = append(r.requests, &receivedRequest{header: req.Header.Clone(), body: body, user: user, pass: pass})
		status := r.statuses[min(len(r.requests), len(r.statuses))-1]
		for k, v := range r.header {
			w.Header()[k] = v
		}
		r.mu.Unlock()
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"received": true, "status": %d}`, status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) got() []*receivedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*receivedRequest(nil), r.requests...)
}

func newDispatcher(app *testapp.App) *dispatch.Dispatcher {
	client := dispatch.NewWebhookClient("test", true) // the receivers are on loopback
	client.Now = app.Clock.Now
	return &dispatch.Dispatcher{Queue: app.Dispatch, Client: client, Now: app.Clock.Now, Logger: quiet}
}

// oneWebhook gives account 1001 one contact whose webhook is rcv, takes a message, and
// returns the contact, the message and a dispatcher.
func oneWebhook(t *testing.T, app *testapp.App, rcv *receiver) (*answerdesk.OnCallContact, *answerdesk.Message, *dispatch.Dispatcher) {
	t.Helper()
	c := app.CreateOnCallContact(t, app.Alice, contactJSON(1, "A", rcv.URL, ""))
	m := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
	return c, m, newDispatcher(app)
}

func contactJSON(level int, name, url, extra string) string {
	return fmt.Sprintf(`{"account_number":"1001","name":%q,"escalation_level":%d,"delivery_methods":[{"type":"external_api","url":%q,
		"data":[{"field":"text","value":"{{message.content}}"},{"field":"contact","value":"{{contact.name}}"}]%s}]}`, name, level, url, extra)
}

func deliveries(t *testing.T, app *testapp.App, messageID int64) []*answerdesk.DispatchDelivery {
	t.Helper()
	list, _, err := app.Dispatch.FindDispatchDeliveries(context.Background(), app.Caller(t, app.Alice),
		answerdesk.DeliveryQuery{MessageID: messageID, Paging: answerdesk.Paging{Page: 1, PageSize: 100}})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func dispatchTick(t *testing.T, d *dispatch.Dispatcher) {
	t.Helper()
	if _, err := d.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// tickAfter moves the clock on by wait, runs the dispatcher once, and fails unless rcv has
// then had want requests in all; when names the moment for the failure.
func tickAfter(t *testing.T, app *testapp.App, d *dispatch.Dispatcher, rcv *receiver, wait time.Duration, want int, when string) {
	t.Helper()
	app.Clock.Advance(wait)
	dispatchTick(t, d)
	if n := len(rcv.got()); n != want {
		t.Fatalf("%s: %d requests, want %d", when, n, want)
	}
}

func TestDispatchDeliversToTheEndpoint(t *testing.T) {
	app := testapp.New(t)
	rcv := newReceiver(t, 200)
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	app.CreateOnCallContact(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","name":"Dispatch board","delivery_methods":[{"type":"external_api","url":%q,"payload_type":"JSON",
		"data":[{"field":"text","value":"{{message.content}}"},{"field":"callback","value":"{{message.answers.Callback number}}"},
		{"field":"who","value":"{{message.first_name}} for {{account.name}} ({{account.number}}) via {{contact.name}}"},{"field":"oops","value":"{{message.answers.Missing}}"}],
		"basic_auth":{"username":"acme","password":"s3cret"},"headers":{"X-Api-Key":"k-123","Accept":"application/json"},"signing_secret":%q}]}`, rcv.URL, secret))
	m := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{"content": "Leak in unit 4B", "first_name": "Dana",
		"answers": map[string]any{"Callback number": "+15555550142"}})
	d := newDispatcher(app)
	dispatchTick(t, d)

	got := rcv.got()
	if len(got) != 1 {
		t.Fatalf("receiver got %d requests", len(got))
	}
	r := got[0]
	var body map[string]string
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	want := map[string]string{"text": "Leak in unit 4B", "callback": "+15555550142", "who": "Dana for Acme Plumbing (1001) via Dispatch board", "oops": ""}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("body[%s] = %q, want %q", k, body[k], v)
		}
	}
	if r.header.Get("Content-Type") != "application/json" || r.user != "acme" || r.pass != "s3cret" || r.header.Get("X-Api-Key") != "k-123" ||
		!strings.HasPrefix(r.header.Get("User-Agent"), "answerdesk-dispatch/") {
		t.Fatalf("headers %v basic %s:%s", r.header, r.user, r.pass)
	}
	list := deliveries(t, app, m.ID)
	if len(list) != 1 {
		t.Fatalf("%d deliveries", len(list))
	}
	dl := list[0]
	if r.header.Get("Idempotency-Key") != dl.UUID || r.header.Get("Webhook-Id") != dl.UUID {
		t.Fatalf("Idempotency-Key %q webhook-id %q, want the delivery uuid %s", r.header.Get("Idempotency-Key"), r.header.Get("Webhook-Id"), dl.UUID)
	}
	ts, _ := strconv.ParseInt(r.header.Get("Webhook-Timestamp"), 10, 64)
	sig, err := dispatch.SignWebhook(secret, dl.UUID, ts, r.body)
	if err != nil || r.header.Get("Webhook-Signature") != sig || ts != testapp.Start.Unix() {
		t.Fatalf("signature %q, want %q (ts %d)", r.header.Get("Webhook-Signature"), sig, ts)
	}
	if dl.Status != "delivered" || len(dl.Attempts) != 1 || *dl.Attempts[0].HTTPStatus != 200 || len(dl.Warnings) != 1 ||
		!strings.Contains(dl.Warnings[0], "Missing") || dl.Attempts[0].ResponseExcerpt == nil {
		t.Fatalf("delivery %+v", dl)
	}
	var msg struct{ Data answerdesk.Message }
	app.Do(t, "GET", fmt.Sprint("/api/v2/messages/", m.ID), app.Alice.Token, nil).JSON(t, &msg)
	if msg.Data.Status != "delivered" || msg.Data.DeliveredAt == nil {
		t.Fatalf("message after delivery: status %s delivered_at %v", msg.Data.Status, msg.Data.DeliveredAt)
	}
}

func TestDispatchFormPayload(t *testing.T) {
	app := testapp.New(t)
	rcv := newReceiver(t, 204)
	app.CreateOnCallContact(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","name":"Form","delivery_methods":[{"url":%q,"payload_type":"form",
		"data":[{"field":"msg","value":"{{message.content}}"},{"field":"acct","value":"{{account.number}}"}]}]}`, rcv.URL))
	app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{"content": "Call me & soon = please"})
	dispatchTick(t, newDispatcher(app))
	got := rcv.got()
	if len(got) != 1 || got[0].header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("requests %d", len(got))
	}
	form, err := url.ParseQuery(string(got[0].body))
	if err != nil || form.Get("msg") != "Call me & soon = please" || form.Get("acct") != "1001" {
		t.Fatalf("form %v (%v)", form, err)
	}
}

func TestDispatchRetries(t *testing.T) {
	t.Run("5xx_with_backoff_and_the_same_idempotency_key", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 503, 500, 200)
		_, m, d := oneWebhook(t, app, rcv)
		dispatchTick(t, d)
		tickAfter(t, app, d, rcv, 3*time.Second, 1, "3 s on, before the first backoff (5 s ± 20%)")
		tickAfter(t, app, d, rcv, 3*time.Second, 2, "6 s on, after it")
		tickAfter(t, app, d, rcv, 37*time.Second, 3, "37 s more, after the second backoff (30 s ± 20%)")
		got := rcv.got()
		for _, r := range got[1:] {
			if r.header.Get("Idempotency-Key") != got[0].header.Get("Idempotency-Key") || string(r.body) != string(got[0].body) {
				t.Fatal("a retry changed the idempotency key or the body")
			}
		}
		dl := deliveries(t, app, m.ID)[0]
		if dl.Status != "delivered" || len(dl.Attempts) != 3 || *dl.Attempts[0].HTTPStatus != 503 || *dl.Attempts[2].HTTPStatus != 200 {
			t.Fatalf("delivery %+v", dl)
		}
	})
	t.Run("429_honours_retry_after", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 429, 200)
		rcv.header.Set("Retry-After", "120")
		_, _, d := oneWebhook(t, app, rcv)
		dispatchTick(t, d)
		tickAfter(t, app, d, rcv, 100*time.Second, 1, "100 s on, before Retry-After")
		tickAfter(t, app, d, rcv, 21*time.Second, 2, "121 s on, after Retry-After")
	})
	t.Run("400_is_not_retried", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 400)
		_, m, d := oneWebhook(t, app, rcv)
		dispatchTick(t, d)
		app.Clock.Advance(24 * time.Hour)
		dispatchTick(t, d)
		dl := deliveries(t, app, m.ID)[0]
		if len(rcv.got()) != 1 || dl.Status != "failed" || dl.NextAttemptAt != nil {
			t.Fatalf("%d requests, delivery %+v", len(rcv.got()), dl)
		}
	})
	t.Run("gives_up_after_the_last_backoff", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 500)
		_, m, d := oneWebhook(t, app, rcv)
		for range 12 {
			dispatchTick(t, d)
			app.Clock.Advance(8 * time.Hour)
		}
		dl := deliveries(t, app, m.ID)[0]
		if len(rcv.got()) != 9 || dl.Status != "failed" {
			t.Fatalf("%d requests (want 1 + 8 retries), status %s", len(rcv.got()), dl.Status)
		}
	})
	t.Run("410_disables_the_method", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 410)
		c, _, d := oneWebhook(t, app, rcv)
		dispatchTick(t, d)
		m2 := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
		dispatchTick(t, d)
		if len(rcv.got()) != 1 || len(deliveries(t, app, m2.ID)) != 0 {
			t.Fatalf("a disabled method still receives: %d requests", len(rcv.got()))
		}
		list, _, _ := app.Dispatch.FindOnCallContacts(context.Background(), app.Caller(t, app.Alice), answerdesk.Paging{Page: 1, PageSize: 10})
		if list[0].ID != c.ID || list[0].DeliveryMethods[0].DisabledAt == nil {
			t.Fatalf("method not disabled: %+v", list[0].DeliveryMethods[0])
		}
	})
}

func TestDispatchRefusesPrivateAddresses(t *testing.T) {
	app := testapp.New(t)
	rcv := newReceiver(t, 200)
	_, m, d := oneWebhook(t, app, rcv)
	d.Client = dispatch.NewWebhookClient("test", false) // the guard on, as in production
	dispatchTick(t, d)
	dl := deliveries(t, app, m.ID)[0]
	if len(rcv.got()) != 0 || dl.Status != "failed" || dl.Attempts[0].Error == nil {
		t.Fatalf("loopback endpoint reached with the guard on: %d requests, %+v", len(rcv.got()), dl)
	}
}

func TestEscalation(t *testing.T) {
	app := testapp.New(t)
	levels := []*receiver{newReceiver(t, 200), newReceiver(t, 200), newReceiver(t, 200)}
	app.CreateOnCallContact(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","name":"First","escalation_level":1,"escalate_after_minutes":10,"delivery_methods":[{"url":%q,"data":[{"field":"to","value":"{{contact.name}}"}]}]}`, levels[0].URL))
	app.CreateOnCallContact(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","name":"Second","escalation_level":2,"escalate_after_minutes":20,"delivery_methods":[{"url":%q,"data":[{"field":"to","value":"{{contact.name}}"}]}]}`, levels[1].URL))
	app.CreateOnCallContact(t, app.Alice, fmt.Sprintf(`{"account_number":"1001","name":"Third","escalation_level":3,"delivery_methods":[{"url":%q,"data":[{"field":"to","value":"{{contact.name}}"}]}]}`, levels[2].URL))
	d := newDispatcher(app)
	get := func(id int64) answerdesk.Message {
		var m struct{ Data answerdesk.Message }
		app.Do(t, "GET", fmt.Sprint("/api/v2/messages/", id), app.Alice.Token, nil).JSON(t, &m)
		return m.Data
	}
	counts := func() [3]int {
		return [3]int{len(levels[0].got()), len(levels[1].got()), len(levels[2].got())}
	}

	m := app.CreateMessage(t, app.Alice, app.Clock.Now(), map[string]any{})
	dispatchTick(t, d)
	if c := counts(); c != [3]int{1, 0, 0} {
		t.Fatalf("after create: %v", c)
	}
	got := get(m.ID)
	if got.EscalationCounter != 0 || got.NextEscalationAt == nil || !got.NextEscalationAt.Equal(app.Clock.Now().Add(10*time.Minute)) || got.Status != "delivered" {
		t.Fatalf("level 1: counter %d next %v status %s", got.EscalationCounter, got.NextEscalationAt, got.Status)
	}
	app.Clock.Advance(9 * time.Minute)
	dispatchTick(t, d)
	if c := counts(); c != [3]int{1, 0, 0} {
		t.Fatalf("escalated early: %v", c)
	}
	app.Clock.Advance(2 * time.Minute)
	dispatchTick(t, d)
	got = get(m.ID)
	if c := counts(); c != [3]int{1, 1, 0} || got.EscalationCounter != 1 || !got.NextEscalationAt.Equal(app.Clock.Now().Add(20*time.Minute)) {
		t.Fatalf("level 2: %v counter %d next %v", c, got.EscalationCounter, got.NextEscalationAt)
	}
	app.Clock.Advance(21 * time.Minute)
	dispatchTick(t, d)
	got = get(m.ID)
	if c := counts(); c != [3]int{1, 1, 1} || got.EscalationCounter != 2 || got.NextEscalationAt != nil {
		t.Fatalf("level 3: %v counter %d next %v", c, got.EscalationCounter, got.NextEscalationAt)
	}
	if body := string(levels[2].got()[0].body); body != `{"to":"Third"}` {
		t.Fatalf("level 3 body %s", body)
	}

	t.Run("acknowledge_stops_it", func(t *testing.T) {
		m := app.CreateMessage(t, app.Alice, app.Clock.Now(), map[string]any{})
		dispatchTick(t, d)
		app.Do(t, "PATCH", fmt.Sprintf("/api/v2/messages/%d/acknowledge", m.ID), app.Alice.Token, nil)
		before := counts()
		app.Clock.Advance(2 * time.Hour)
		dispatchTick(t, d)
		if c := counts(); c != before || get(m.ID).EscalationCounter != 0 {
			t.Fatalf("escalated after acknowledge: %v -> %v", before, c)
		}
	})
}

func TestReplay(t *testing.T) {
	app := testapp.New(t)
	rcv := newReceiver(t, 400, 200)
	_, m, d := oneWebhook(t, app, rcv)
	app.Dispatch.OnChange = d.Wake
	dispatchTick(t, d)
	dl := deliveries(t, app, m.ID)[0]
	if dl.Status != "failed" {
		t.Fatalf("status %s", dl.Status)
	}
	r := app.Do(t, "POST", fmt.Sprintf("/api/v2/dispatch-deliveries/%d/replay", dl.ID), app.Alice.Token, nil)
	var replayed struct{ Data answerdesk.DispatchDelivery }
	r.JSON(t, &replayed)
	if r.Status != 200 || replayed.Data.Status != "pending" {
		t.Fatalf("replay: %d %s", r.Status, r.Body)
	}
	dispatchTick(t, d)
	dl = deliveries(t, app, m.ID)[0]
	if dl.Status != "delivered" || len(dl.Attempts) != 2 || len(rcv.got()) != 2 {
		t.Fatalf("after replay: %+v", dl)
	}
	if r := app.Do(t, "POST", fmt.Sprintf("/api/v2/dispatch-deliveries/%d/replay", dl.ID), app.Bob.Token, nil); r.Status != 404 {
		t.Fatalf("another account's replay: %d", r.Status)
	}
}

func TestRemovedDestinationsGetNothingMore(t *testing.T) {
	t.Run("contact_deleted_while_a_retry_waits", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 503)
		c, m, d := oneWebhook(t, app, rcv)
		dispatchTick(t, d)
		if r := app.Do(t, "DELETE", fmt.Sprint("/api/v2/on-call-contacts/", c.ID), app.Alice.Token, nil); r.Status != 200 {
			t.Fatal(string(r.Body))
		}
		app.Clock.Advance(time.Hour)
		dispatchTick(t, d)
		if n := len(rcv.got()); n != 1 || deliveries(t, app, m.ID)[0].Status != "failed" {
			t.Fatalf("%d requests after delete, status %s", n, deliveries(t, app, m.ID)[0].Status)
		}
	})
	t.Run("replay_to_a_disabled_method", func(t *testing.T) {
		app := testapp.New(t)
		rcv := newReceiver(t, 410, 200)
		_, m, d := oneWebhook(t, app, rcv)
		dispatchTick(t, d)
		dl := deliveries(t, app, m.ID)[0]
		if r := app.Do(t, "POST", fmt.Sprintf("/api/v2/dispatch-deliveries/%d/replay", dl.ID), app.Alice.Token, nil); r.Status != 200 {
			t.Fatal(string(r.Body))
		}
		dispatchTick(t, d)
		if n := len(rcv.got()); n != 1 || deliveries(t, app, m.ID)[0].Status != "failed" {
			t.Fatalf("a method disabled by 410 got %d requests", n)
		}
	})
}

// TestTakeoverKeepsTheRetrySchedule: a delivery claimed by a process that died is taken over
// when the lease expires, and the backoff counts the attempts made, not the claims.
func TestTakeoverKeepsTheRetrySchedule(t *testing.T) {
	app := testapp.New(t)
	rcv := newReceiver(t, 503, 200)
	app.CreateOnCallContact(t, app.Alice, contactJSON(1, "A", rcv.URL, ""))
	m := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
	if claimed, err := app.Dispatch.ClaimDeliveries(context.Background(), app.Clock.Now(), time.Minute, 10); err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	app.Clock.Advance(61 * time.Second) // the lease of the dead process expires
	d := newDispatcher(app)
	dispatchTick(t, d) // first real attempt: 503
	app.Clock.Advance(6 * time.Second)
	dispatchTick(t, d) // the first backoff is 5 s, not the second one (30 s)
	if dl := deliveries(t, app, m.ID)[0]; dl.Status != "delivered" || len(dl.Attempts) != 2 {
		t.Fatalf("after takeover: status %s, %d attempts", dl.Status, len(dl.Attempts))
	}
}

// TestDeliveryErrorsHideInternalAddresses: the error stored on an attempt,
// shown in GET /api/v2/dispatch-deliveries, is a category and the host the customer
// configured, never the address the service resolved it to (nor its resolver).
func TestDeliveryErrorsHideInternalAddresses(t *testing.T) {
	closed := newReceiver(t, 200)
	closedURL := strings.Replace(closed.URL, "127.0.0.1", "localhost", 1) + "/hook"
	closedHost := strings.TrimPrefix(strings.Replace(closed.URL, "127.0.0.1", "localhost", 1), "http://")
	closed.Close() // nothing listens there any more
	tests := []struct {
		name         string
		allowPrivate bool
		url          string
		want         string
	}{
		{"refused_connection", true, closedURL, "connect: refused by " + closedHost},
		{"private_destination", false, closedURL, "blocked: " + closedHost + " resolves to a private, loopback or reserved address, which deliveries may not reach"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			app := testapp.New(t)
			app.CreateOnCallContact(t, app.Alice, contactJSON(1, "A", tc.url, ""))
			m := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
			d := newDispatcher(app)
			d.Client = dispatch.NewWebhookClient("test", tc.allowPrivate)
			dispatchTick(t, d)
			r := app.Do(t, "GET", fmt.Sprint("/api/v2/dispatch-deliveries?message_id=", m.ID), app.Alice.Token, nil)
			for _, leak := range []string{"127.0.0.1", "::1", "dial tcp", " on "} {
				if strings.Contains(string(r.Body), leak) {
					t.Errorf("the delivery log shows %q: %s", leak, r.Body)
				}
			}
			var l struct{ Data []answerdesk.DispatchDelivery }
			r.JSON(t, &l)
			if len(l.Data) != 1 || len(l.Data[0].Attempts) != 1 || l.Data[0].Attempts[0].Error == nil {
				t.Fatalf("deliveries %s", r.Body)
			}
			if got := *l.Data[0].Attempts[0].Error; got != tc.want {
				t.Fatalf("attempt error %q, want %q", got, tc.want)
			}
		})
	}
}
