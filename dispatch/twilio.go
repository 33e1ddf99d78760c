package dispatch

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/answerdesk/answerdesk"
)

// DefaultTwilioBaseURL is the Twilio REST API; any Twilio-compatible API can stand in.
const DefaultTwilioBaseURL = "https://api.twilio.com"

// maxTwilioResponse caps the response body read: a misbehaving endpoint must not make a
// delivery worker buffer an unbounded body.
const maxTwilioResponse = 64 << 10

// TwilioConfig configures the channel of sms, call and ai_outbound_call To Dos.
type TwilioConfig struct {
	BaseURL    string // default DefaultTwilioBaseURL
	AccountSID string
	AuthToken  string
	// HTTPClient defaults to a client with a 30 second timeout.
	HTTPClient *http.Client
	// CallerID is the From of calls; empty means the E.164 number of the To Do's phone.
	CallerID string
}

// TwilioChannel delivers sms To Dos as Twilio Messages and call and ai_outbound_call To Dos
// as Twilio Calls that read the instructions out.
type TwilioChannel struct {
	base     string
	sid      string
	token    string
	client   *http.Client
	callerID string
}

// NewTwilioChannel checks cfg and returns the channel.
func NewTwilioChannel(cfg TwilioConfig) (*TwilioChannel, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultTwilioBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("twilio: base URL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	if cfg.AccountSID == "" || cfg.AuthToken == "" {
		return nil, errors.New("twilio: account SID and auth token are required")
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	return &TwilioChannel{base: base, sid: cfg.AccountSID, token: cfg.AuthToken, client: client,
		callerID: strings.TrimSpace(cfg.CallerID)}, nil
}

// Name returns "twilio".
func (c *TwilioChannel) Name() string { return ChannelTwilio }

// Send creates the Message or Call and returns its SID.
func (c *TwilioChannel) Send(ctx context.Context, o *answerdesk.Occurrence) (string, error) {
	t := o.ToDo
	if t == nil {
		return "", Permanent(errors.New("twilio: occurrence has no To Do"))
	}
	form := url.Values{}
	var resource string
	switch t.DeliveryType {
	case answerdesk.DeliverySMS:
		to, from, body := todoField(t.Contact), todoField(t.From), todoField(t.MessageText)
		switch {
		case to == "":
			return "", Permanent(errors.New("sms To Do has no contact number"))
		case from == "":
			return "", Permanent(errors.New("sms To Do has no from number"))
		case body == "":
			return "", Permanent(errors.New("sms To Do has no message_text"))
		}
		resource = "Messages.json"
		form.Set("To", to)
		form.Set("From", smsFrom(from))
		form.Set("Body", body)
	case answerdesk.DeliveryCall, answerdesk.DeliveryAIOutboundCall:
		to := todoField(t.Contact)
		if to == "" {
			// call To Dos may be created without a contact (a task for a live agent), yet a call
			// needs a number to ring.
			return "", Permanent(errors.New("call To Do has no contact number"))
		}
		from := c.callerID
		if from == "" {
			from = t.PhoneNumber
		}
		if from == "" {
			return "", Permanent(errors.New("call To Do has no caller ID: set the channel's CallerID or the To Do's phone"))
		}
		var say strings.Builder
		_ = xml.EscapeText(&say, []byte(todoField(t.Instructions))) // a strings.Builder does not fail
		resource = "Calls.json"
		form.Set("To", to)
		form.Set("From", from)
		form.Set("Twiml", "<Response><Say>"+say.String()+"</Say></Response>")
	default:
		return "", Permanent(fmt.Errorf("twilio: cannot deliver a %q To Do", t.DeliveryType))
	}
	return c.post(ctx, resource, o.Key, form)
}

// smsFrom returns the From of an sms in E.164. The To Do keeps from with a leading +1
// stripped (the To Dos docs page), so ten digits are a North American number again, whatever the
// first digit; other phone numbers lose their separators; what is no phone number (a short
// code, an alphanumeric sender ID) goes as stored.
func smsFrom(from string) string {
	from = strings.TrimSpace(from)
	if len(from) == 10 && strings.Trim(from, "0123456789") == "" {
		return "+1" + from
	}
	if p, ok := answerdesk.NormalizePhone(from); ok {
		return p
	}
	return from
}

// twilioError is Twilio's error body (https://www.twilio.com/docs/usage/twilios-response).
type twilioError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (c *TwilioChannel) post(ctx context.Context, resource, key string, form url.Values) (string, error) {
	endpoint := c.base + "/2010-04-01/Accounts/" + url.PathEscape(c.sid) + "/" + resource
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", Permanent(fmt.Errorf("twilio: %w", err))
	}
	req.SetBasicAuth(c.sid, c.token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "answerdesk")
	// Twilio ignores it today; a compatible API may honour it and drop a retried duplicate.
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("twilio: %w", err) // network errors and timeouts: retry
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTwilioResponse))
	if err != nil {
		return "", fmt.Errorf("twilio: reading response: %w", err)
	}

	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		var ok struct {
			SID string `json:"sid"`
		}
		if err := json.Unmarshal(body, &ok); err != nil || ok.SID == "" {
			// Not a Twilio answer (a proxy page, say), so nothing says it was sent.
			return "", fmt.Errorf("twilio: %s response without a sid", resp.Status)
		}
		return ok.SID, nil
	}

	var te twilioError
	_ = json.Unmarshal(body, &te) // a non-JSON error body leaves only the status to report
	msg := "twilio: " + resp.Status
	if te.Message != "" {
		msg += ": " + te.Message
	}
	if te.Code != 0 {
		msg += fmt.Sprintf(" (code %d)", te.Code)
	}
	err = errors.New(msg)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusRequestTimeout,
		resp.StatusCode >= 500:
		return "", err
	case resp.StatusCode >= 400:
		// The request itself is wrong (bad number, unknown account, unverified sender):
		// sending it again gets the same answer.
		return "", Permanent(err)
	}
	return "", err // 1xx or 3xx the client did not follow: unexpected, retry
}
