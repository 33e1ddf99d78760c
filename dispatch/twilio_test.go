package dispatch_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
)

// twilioRequest is one request as the fake Twilio API saw it.
type twilioRequest struct {
	method, path, contentType, accept, userAgent, idempotencyKey string
	user, pass                                                   string
	basicAuth                                                    bool
	form                                                         url.Values
}

// fakeTwilio records requests and answers each with status and body.
type fakeTwilio struct {
	status int
	body   string

	mu   sync.Mutex
	reqs []twilioRequest
}

func (f *fakeTwilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(b))
	req := twilioRequest{
		method: r.Method, path: r.URL.Path, contentType: r.Header.Get("Content-Type"),
		accept: r.Header.Get("Accept"), userAgent: r.Header.Get("User-Agent"),
		idempotencyKey: r.Header.Get("Idempotency-Key"), form: form,
	}
	req.user, req.pass, req.basicAuth = r.BasicAuth()
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, f.body)
}

func (f *fakeTwilio) requests() []twilioRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]twilioRequest(nil), f.reqs...)
}

// startTwilio serves f until the test ends and returns a channel using it.
func startTwilio(t *testing.T, f *fakeTwilio, callerID string) (*dispatch.TwilioChannel, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	ch, err := dispatch.NewTwilioChannel(dispatch.TwilioConfig{
		BaseURL: srv.URL + "/", AccountSID: "AC123", AuthToken: "tok3n",
		HTTPClient: &http.Client{Timeout: 5 * time.Second}, CallerID: callerID,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ch, srv
}

// checkRequest asserts what every Twilio request carries.
func checkRequest(t *testing.T, r twilioRequest, path, key string) {
	t.Helper()
	if r.method != http.MethodPost || r.path != path {
		t.Errorf("request %s %s, want POST %s", r.method, r.path, path)
	}
	if r.contentType != "application/x-www-form-urlencoded" {
		t.Errorf("Content-Type = %q", r.contentType)
	}
	if !r.basicAuth || r.user != "AC123" || r.pass != "tok3n" {
		t.Errorf("basic auth = %v %q %q", r.basicAuth, r.user, r.pass)
	}
	if r.accept != "application/json" || r.userAgent != "answerdesk" || r.idempotencyKey != key {
		t.Errorf("Accept %q, User-Agent %q, Idempotency-Key %q", r.accept, r.userAgent, r.idempotencyKey)
	}
}

func TestTwilioChannelSMS(t *testing.T) {
	f := &fakeTwilio{status: http.StatusCreated, body: `{"sid":"SM0123456789abcdef","status":"queued"}`}
	ch, _ := startTwilio(t, f, "")
	if ch.Name() != "twilio" {
		t.Errorf("Name() = %q", ch.Name())
	}
	var _ dispatch.Channel = ch
	todo := channelToDo(answerdesk.DeliverySMS)

	sid, err := ch.Send(context.Background(), occurrence(todo, "42-20260301T1430Z"))
	if err != nil {
		t.Fatal(err)
	}
	if sid != "SM0123456789abcdef" {
		t.Errorf("provider id = %q", sid)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	checkRequest(t, reqs[0], "/2010-04-01/Accounts/AC123/Messages.json", "42-20260301T1430Z")
	want := url.Values{"To": {"+15555550123"}, "From": {"+15555550199"}, "Body": {"Reminder: call the office back"}}
	if reqs[0].form.Encode() != want.Encode() {
		t.Errorf("form = %v, want %v", reqs[0].form, want)
	}
}

func TestTwilioChannelSMSFrom(t *testing.T) {
	tests := map[string]string{
		"5555550199":      "+15555550199", // stored with +1 stripped
		"+447700900123":   "+447700900123",
		"(555) 555-0199":  "+15555550199",
		"15555550199":     "+15555550199",
		"12345":           "12345", // short code
		"AcmeDesk":        "AcmeDesk",
		" 5555550199\t":   "+15555550199",
		"+1 555 555 0199": "+15555550199",
		"1234567890":      "+11234567890", // ten digits, even where NANP has no such area code
	}
	f := &fakeTwilio{status: http.StatusCreated, body: `{"sid":"SM1"}`}
	ch, _ := startTwilio(t, f, "")
	for from, want := range tests {
		todo := channelToDo(answerdesk.DeliverySMS)
		todo.From = strp(from)
		if _, err := ch.Send(context.Background(), occurrence(todo, "k")); err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()
		if got := reqs[len(reqs)-1].form.Get("From"); got != want {
			t.Errorf("from %q sent as %q, want %q", from, got, want)
		}
	}
}

func TestTwilioChannelCall(t *testing.T) {
	for _, kind := range []string{answerdesk.DeliveryCall, answerdesk.DeliveryAIOutboundCall} {
		t.Run(kind, func(t *testing.T) {
			f := &fakeTwilio{status: http.StatusCreated, body: `{"sid":"CA42"}`}
			ch, _ := startTwilio(t, f, "")
			sid, err := ch.Send(context.Background(), occurrence(channelToDo(kind), "key-1"))
			if err != nil {
				t.Fatal(err)
			}
			if sid != "CA42" {
				t.Errorf("provider id = %q", sid)
			}
			r := f.requests()[0]
			checkRequest(t, r, "/2010-04-01/Accounts/AC123/Calls.json", "key-1")
			want := url.Values{
				"To":    {"+15555550123"},
				"From":  {"+15555550100"}, // the To Do's phone
				"Twiml": {"<Response><Say>Say &#34;hi&#34; &amp; &lt;bye&gt;</Say></Response>"},
			}
			if r.form.Encode() != want.Encode() {
				t.Errorf("form = %v, want %v", r.form, want)
			}
		})
	}
	t.Run("caller ID from config", func(t *testing.T) {
		f := &fakeTwilio{status: http.StatusCreated, body: `{"sid":"CA43"}`}
		ch, _ := startTwilio(t, f, "+15555550999")
		if _, err := ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryCall), "k")); err != nil {
			t.Fatal(err)
		}
		if got := f.requests()[0].form.Get("From"); got != "+15555550999" {
			t.Errorf("From = %q", got)
		}
	})
}

func TestTwilioChannelRejectsBadToDos(t *testing.T) {
	f := &fakeTwilio{status: http.StatusCreated, body: `{"sid":"X"}`}
	ch, _ := startTwilio(t, f, "")
	tests := map[string]*answerdesk.ToDo{
		"email To Do":        channelToDo(answerdesk.DeliveryEmail),
		"call without phone": func() *answerdesk.ToDo { t := channelToDo(answerdesk.DeliveryCall); t.PhoneNumber = ""; return t }(),
		"sms without from":   func() *answerdesk.ToDo { t := channelToDo(answerdesk.DeliverySMS); t.From = nil; return t }(),
		"sms without body":   func() *answerdesk.ToDo { t := channelToDo(answerdesk.DeliverySMS); t.MessageText = strp(""); return t }(),
	}
	noContact := channelToDo(answerdesk.DeliveryCall)
	noContact.Contact = nil
	tests["call without contact"] = noContact
	for name, todo := range tests {
		_, err := ch.Send(context.Background(), occurrence(todo, "k"))
		if err == nil || !dispatch.IsPermanent(err) {
			t.Errorf("%s: err = %v, want permanent", name, err)
		}
	}
	if _, err := ch.Send(context.Background(), occurrence(noContact, "k")); err == nil ||
		err.Error() != "call To Do has no contact number" {
		t.Errorf("call without contact: %v", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent for bad To Dos", n)
	}
}

func TestTwilioChannelClassifiesErrors(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		permanent bool
		contains  []string
	}{
		{"invalid To", 400, `{"code":21211,"message":"Invalid 'To' Phone Number","more_info":"https://www.twilio.com/docs/errors/21211","status":400}`,
			true, []string{"Invalid 'To' Phone Number", "21211", "400"}},
		{"bad credentials", 401, `{"code":20003,"message":"Authenticate"}`, true, []string{"Authenticate", "20003"}},
		{"unknown account", 404, `{"code":20404,"message":"The requested resource was not found"}`, true, []string{"not found"}},
		{"rate limited", 429, `{"code":20429,"message":"Too Many Requests"}`, false, []string{"Too Many Requests", "20429"}},
		{"request timeout", 408, ``, false, []string{"408"}},
		{"server error", 500, `{"code":20500,"message":"Internal Server Error"}`, false, []string{"Internal Server Error", "20500"}},
		{"bad gateway, HTML body", 502, `<html>bad gateway</html>`, false, []string{"502"}},
		{"2xx without sid", 200, `<html>ok</html>`, false, []string{"without a sid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeTwilio{status: tt.status, body: tt.body}
			ch, _ := startTwilio(t, f, "")
			_, err := ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliverySMS), "k"))
			if err == nil {
				t.Fatal("no error")
			}
			if got := dispatch.IsPermanent(err); got != tt.permanent {
				t.Errorf("IsPermanent(%v) = %v, want %v", err, got, tt.permanent)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestTwilioChannelNetworkErrorIsTransient(t *testing.T) {
	f := &fakeTwilio{status: http.StatusCreated, body: `{"sid":"SM1"}`}
	ch, srv := startTwilio(t, f, "")
	srv.Close()
	_, err := ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliverySMS), "k"))
	if err == nil || dispatch.IsPermanent(err) {
		t.Fatalf("err = %v, want transient", err)
	}
}

func TestTwilioChannelLimitsResponseBody(t *testing.T) {
	// A huge error body is cut, not buffered whole; the status still classifies it.
	f := &fakeTwilio{status: 500, body: strings.Repeat("x", 1<<20)}
	ch, _ := startTwilio(t, f, "")
	_, err := ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliverySMS), "k"))
	if err == nil || dispatch.IsPermanent(err) || len(err.Error()) > 200 {
		t.Fatalf("err = %.200v", err)
	}
}

func TestNewTwilioChannelValidates(t *testing.T) {
	bad := map[string]dispatch.TwilioConfig{
		"no sid":       {AuthToken: "t"},
		"no token":     {AccountSID: "AC1"},
		"relative url": {BaseURL: "api.twilio.com", AccountSID: "AC1", AuthToken: "t"},
		"ftp url":      {BaseURL: "ftp://api.twilio.com", AccountSID: "AC1", AuthToken: "t"},
	}
	for name, cfg := range bad {
		if _, err := dispatch.NewTwilioChannel(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := dispatch.NewTwilioChannel(dispatch.TwilioConfig{AccountSID: "AC1", AuthToken: "t"}); err != nil {
		t.Errorf("default base URL: %v", err)
	}
}
