package dispatch_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
)

// received is one message as the test SMTP server took it.
type received struct {
	from string   // MAIL FROM
	to   []string // RCPT TO
	data []byte   // raw DATA
	user string   // AUTH PLAIN user, "" without AUTH
}

// smtpRecorder is a go-smtp Backend that keeps every message it accepts.
type smtpRecorder struct {
	rcptErr    error  // answer to every RCPT TO when set
	user, pass string // when set, AUTH PLAIN is offered and required

	mu   sync.Mutex
	msgs []received
}

func (r *smtpRecorder) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &smtpSession{rec: r}, nil
}

func (r *smtpRecorder) messages() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.msgs...)
}

type smtpSession struct {
	rec  *smtpRecorder
	user string
	cur  received
}

func (s *smtpSession) AuthMechanisms() []string {
	if s.rec.user == "" {
		return nil // no AUTH advertised
	}
	return []string{sasl.Plain}
}

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.rec.user || pass != s.rec.pass {
			return gosmtp.ErrAuthFailed // 535 5.7.8, as real servers answer
		}
		s.user = user
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *gosmtp.MailOptions) error {
	if s.rec.user != "" && s.user == "" {
		return gosmtp.ErrAuthRequired
	}
	s.cur = received{from: from, user: s.user}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if s.rec.rcptErr != nil {
		return s.rec.rcptErr
	}
	s.cur.to = append(s.cur.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = b
	s.rec.mu.Lock()
	s.rec.msgs = append(s.rec.msgs, s.cur)
	s.rec.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.cur = received{user: s.user} }
func (s *smtpSession) Logout() error { return nil }

// startSMTP serves rec on a loopback port until the test ends and returns a channel config
// pointing at it, in plain text.
func startSMTP(t *testing.T, rec *smtpRecorder) dispatch.SMTPConfig {
	t.Helper()
	srv := gosmtp.NewServer(rec)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true // AUTH PLAIN over the plain-text test connection
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	host, port, _ := net.SplitHostPort(l.Addr().String())
	p, _ := strconv.Atoi(port)
	return dispatch.SMTPConfig{Host: host, Port: p, TLS: "none", HelloName: "answerdesk.test", Timeout: 5 * time.Second}
}

func newSMTP(t *testing.T, cfg dispatch.SMTPConfig) *dispatch.SMTPChannel {
	t.Helper()
	ch, err := dispatch.NewSMTPChannel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// parsed is the part of a received message the tests look at, decoded.
type parsed struct {
	header mail.Header
	from   *mail.Address
	to     []*mail.Address
	subj   string
	body   string
}

func parseReceived(t *testing.T, raw []byte) parsed {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("received message does not parse: %v\n%s", err, raw)
	}
	var p parsed
	p.header = m.Header
	from, err := m.Header.AddressList("From")
	if err != nil || len(from) != 1 {
		t.Fatalf("From %q: %v", m.Header.Get("From"), err)
	}
	p.from = from[0]
	if p.to, err = m.Header.AddressList("To"); err != nil {
		t.Fatalf("To %q: %v", m.Header.Get("To"), err)
	}
	if p.subj, err = new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject")); err != nil {
		t.Fatal(err)
	}
	body := io.Reader(m.Body)
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	p.body = strings.ReplaceAll(string(b), "\r\n", "\n")
	return p
}

func TestSMTPChannelSends(t *testing.T) {
	rec := &smtpRecorder{}
	ch := newSMTP(t, startSMTP(t, rec))
	if ch.Name() != "smtp" {
		t.Errorf("Name() = %q", ch.Name())
	}
	todo := channelToDo(answerdesk.DeliveryEmail)

	id, err := ch.Send(context.Background(), occurrence(todo, "42-20260301T1430Z"))
	if err != nil {
		t.Fatal(err)
	}
	const wantID = "<todo-occurrence-42-20260301T1430Z@acme.example>"
	if id != wantID {
		t.Errorf("provider id = %q, want %q", id, wantID)
	}
	msgs := rec.messages()
	if len(msgs) != 1 {
		t.Fatalf("server got %d messages", len(msgs))
	}
	got := msgs[0]
	if got.from != "desk@acme.example" || len(got.to) != 1 || got.to[0] != "alice@example.com" {
		t.Errorf("envelope MAIL FROM %q RCPT TO %q", got.from, got.to)
	}
	p := parseReceived(t, got.data)
	if p.from.Name != `Acme "Front" Désk` || p.from.Address != "desk@acme.example" {
		t.Errorf("From = %q <%s> (raw %q)", p.from.Name, p.from.Address, p.header.Get("From"))
	}
	if len(p.to) != 1 || p.to[0].Address != "alice@example.com" {
		t.Errorf("To = %v", p.to)
	}
	if p.subj != "Your reminder ✓" {
		t.Errorf("Subject = %q", p.subj)
	}
	if p.body != *todo.MessageText {
		t.Errorf("body = %q, want %q", p.body, *todo.MessageText)
	}
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q", ct)
	}
	if h := p.header.Get("Message-ID"); h != wantID {
		t.Errorf("Message-ID = %q", h)
	}
	if h := p.header.Get("X-Answerdesk-Occurrence"); h != "42-20260301T1430Z" {
		t.Errorf("X-Answerdesk-Occurrence = %q", h)
	}
	if p.header.Get("Date") == "" {
		t.Error("no Date header")
	}

	// A retry of the same occurrence carries the same Message-ID; another occurrence not.
	if _, err := ch.Send(context.Background(), occurrence(todo, "42-20260301T1430Z")); err != nil {
		t.Fatal(err)
	}
	other, err := ch.Send(context.Background(), occurrence(todo, "42-20260302T1430Z"))
	if err != nil {
		t.Fatal(err)
	}
	msgs = rec.messages()
	if len(msgs) != 3 {
		t.Fatalf("server got %d messages", len(msgs))
	}
	if h := parseReceived(t, msgs[1].data).header.Get("Message-ID"); h != wantID {
		t.Errorf("retried Message-ID = %q, want %q", h, wantID)
	}
	if h := parseReceived(t, msgs[2].data).header.Get("Message-ID"); h != other || h == wantID {
		t.Errorf("next occurrence Message-ID = %q (provider id %q)", h, other)
	}
}

func TestSMTPChannelMessageIDEscapesKey(t *testing.T) {
	rec := &smtpRecorder{}
	ch := newSMTP(t, startSMTP(t, rec))
	todo := channelToDo(answerdesk.DeliveryEmail)
	todo.FromEmail = strp("Desk@ACME.example")
	id, err := ch.Send(context.Background(), occurrence(todo, "42@2026-03-01 14:30=Z"))
	if err != nil {
		t.Fatal(err)
	}
	const want = "<todo-occurrence-42=402026-03-01=2014=3A30=3DZ@acme.example>"
	if id != want {
		t.Errorf("provider id = %q, want %q", id, want)
	}
	p := parseReceived(t, rec.messages()[0].data)
	if h := p.header.Get("Message-ID"); h != want {
		t.Errorf("Message-ID = %q", h)
	}
}

func TestSMTPChannelSubjectFallsBackToName(t *testing.T) {
	for name, subject := range map[string]*string{"nil": nil, "empty": strp(""), "blank": strp("  ")} {
		t.Run(name, func(t *testing.T) {
			rec := &smtpRecorder{}
			ch := newSMTP(t, startSMTP(t, rec))
			todo := channelToDo(answerdesk.DeliveryEmail)
			todo.Subject = subject
			todo.SenderName = nil
			if _, err := ch.Send(context.Background(), occurrence(todo, "k")); err != nil {
				t.Fatal(err)
			}
			p := parseReceived(t, rec.messages()[0].data)
			if p.subj != "Morning reminder" {
				t.Errorf("Subject = %q", p.subj)
			}
			if p.from.Name != "" || p.from.Address != "desk@acme.example" {
				t.Errorf("From without sender_name = %q", p.header.Get("From"))
			}
		})
	}
}

func TestSMTPChannelAuthPlain(t *testing.T) {
	rec := &smtpRecorder{user: "relay-user", pass: "s3cret"}
	cfg := startSMTP(t, rec)

	t.Run("no credentials", func(t *testing.T) {
		_, err := newSMTP(t, cfg).Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryEmail), "k"))
		if err == nil {
			t.Fatal("server requiring AUTH accepted a message without it")
		}
	})
	t.Run("good credentials", func(t *testing.T) {
		cfg := cfg
		cfg.Username, cfg.Password = "relay-user", "s3cret"
		if _, err := newSMTP(t, cfg).Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryEmail), "k")); err != nil {
			t.Fatal(err)
		}
		msgs := rec.messages()
		if len(msgs) != 1 || msgs[0].user != "relay-user" {
			t.Fatalf("messages = %+v", msgs)
		}
	})
	t.Run("bad credentials are permanent", func(t *testing.T) {
		cfg := cfg
		cfg.Username, cfg.Password = "relay-user", "wrong"
		_, err := newSMTP(t, cfg).Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryEmail), "k"))
		if err == nil || !dispatch.IsPermanent(err) {
			t.Fatalf("err = %v, permanent %v", err, dispatch.IsPermanent(err))
		}
	})
}

func TestSMTPChannelClassifiesRejections(t *testing.T) {
	tests := []struct {
		name      string
		rcptErr   error
		permanent bool
	}{
		{"550 mailbox unavailable", &gosmtp.SMTPError{Code: 550, EnhancedCode: gosmtp.EnhancedCode{5, 1, 1}, Message: "mailbox unavailable"}, true},
		{"451 try later", &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: "try again later"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &smtpRecorder{rcptErr: tt.rcptErr}
			ch := newSMTP(t, startSMTP(t, rec))
			_, err := ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryEmail), "k"))
			if err == nil {
				t.Fatal("rejected RCPT but Send succeeded")
			}
			if got := dispatch.IsPermanent(err); got != tt.permanent {
				t.Errorf("IsPermanent(%v) = %v, want %v", err, got, tt.permanent)
			}
			if !strings.Contains(err.Error(), strconv.Itoa(tt.rcptErr.(*gosmtp.SMTPError).Code)) {
				t.Errorf("error %q lacks the reply code", err)
			}
			if n := len(rec.messages()); n != 0 {
				t.Errorf("server stored %d messages", n)
			}
		})
	}
}

func TestSMTPChannelNetworkErrorIsTransient(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close() // nothing listens there now: connection refused
	ch := newSMTP(t, dispatch.SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", Timeout: 2 * time.Second})
	_, err = ch.Send(context.Background(), occurrence(channelToDo(answerdesk.DeliveryEmail), "k"))
	if err == nil || dispatch.IsPermanent(err) {
		t.Fatalf("err = %v, want a transient error", err)
	}
}

func TestSMTPChannelRejectsBadToDos(t *testing.T) {
	rec := &smtpRecorder{}
	ch := newSMTP(t, startSMTP(t, rec))
	tests := map[string]func(*answerdesk.ToDo){
		"no contact":      func(t *answerdesk.ToDo) { t.Contact = nil },
		"no from_email":   func(t *answerdesk.ToDo) { t.FromEmail = nil },
		"bad from_email":  func(t *answerdesk.ToDo) { t.FromEmail = strp("not an address") },
		"bad contact":     func(t *answerdesk.ToDo) { t.Contact = strp("alice@") },
		"no message_text": func(t *answerdesk.ToDo) { t.MessageText = nil },
		"sms To Do":       func(t *answerdesk.ToDo) { t.DeliveryType = answerdesk.DeliverySMS },
	}
	for name, breakIt := range tests {
		t.Run(name, func(t *testing.T) {
			todo := channelToDo(answerdesk.DeliveryEmail)
			breakIt(todo)
			_, err := ch.Send(context.Background(), occurrence(todo, "k"))
			if err == nil || !dispatch.IsPermanent(err) {
				t.Errorf("err = %v, want a permanent error", err)
			}
		})
	}
	if n := len(rec.messages()); n != 0 {
		t.Errorf("server stored %d messages", n)
	}
}

func TestNewSMTPChannelValidates(t *testing.T) {
	bad := map[string]dispatch.SMTPConfig{
		"no host":              {TLS: "none"},
		"unknown tls":          {Host: "mail.example", TLS: "ssl"},
		"port out of range":    {Host: "mail.example", Port: 70000},
		"negative timeout":     {Host: "mail.example", Timeout: -time.Second},
		"password no username": {Host: "mail.example", Password: "x"},
	}
	for name, cfg := range bad {
		if _, err := dispatch.NewSMTPChannel(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, mode := range []string{"", "starttls", "opportunistic", "tls", "none", "STARTTLS"} {
		if _, err := dispatch.NewSMTPChannel(dispatch.SMTPConfig{Host: "mail.example", TLS: mode, Username: "u", Password: "p"}); err != nil {
			t.Errorf("tls %q: %v", mode, err)
		}
	}
}
