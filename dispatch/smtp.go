package dispatch

import (
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
	"net/textproto"
	"strings"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/answerdesk/answerdesk"
)

// SMTP transport security modes of SMTPConfig.TLS.
const (
	SMTPStartTLS      = "starttls"      // STARTTLS required; a server without it fails the send
	SMTPOpportunistic = "opportunistic" // STARTTLS when the server offers it, else plain text
	SMTPImplicitTLS   = "tls"           // TLS from the first byte (SMTPS, usually port 465)
	SMTPNoTLS         = "none"          // plain text only
)

// DefaultSMTPTimeout bounds the dial and each SMTP command when SMTPConfig.Timeout is zero.
const DefaultSMTPTimeout = 30 * time.Second

// SMTPConfig configures the SMTP channel of email To Dos.
type SMTPConfig struct {
	Host string
	// Port defaults to 465 for "tls", 587 for "starttls" and "opportunistic", 25 for "none".
	Port int
	// Username turns on SMTP AUTH (PLAIN or LOGIN, whichever the server offers). Credentials
	// are never sent in clear text under "starttls", "opportunistic" (when the server did not
	// offer STARTTLS) or "tls", except to localhost; "none" is an explicit choice of a plain
	// text link, so there they are sent as they are.
	Username, Password string
	// TLS is "starttls" (the default when empty), "opportunistic", "tls" or "none".
	TLS string
	// HelloName is the EHLO name; empty means the host name of this machine.
	HelloName string
	// Timeout bounds the dial and each SMTP command; zero means DefaultSMTPTimeout.
	Timeout time.Duration
}

// SMTPChannel delivers email To Dos through one SMTP server (a relay or submission server),
// one connection per send.
type SMTPChannel struct {
	host string
	opts []mail.Option
}

// NewSMTPChannel checks cfg and returns the channel. Nothing is dialled until a send.
func NewSMTPChannel(cfg SMTPConfig) (*SMTPChannel, error) {
	host := strings.TrimSpace(cfg.Host)
	if host == "" {
		return nil, errors.New("smtp: host is required")
	}
	mode := strings.ToLower(strings.TrimSpace(cfg.TLS))
	if mode == "" {
		mode = SMTPStartTLS
	}
	port := cfg.Port
	var opts []mail.Option
	switch mode {
	case SMTPStartTLS:
		opts, port = append(opts, mail.WithTLSPolicy(mail.TLSMandatory)), smtpDefaultPort(port, 587)
	case SMTPOpportunistic:
		opts, port = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic)), smtpDefaultPort(port, 587)
	case SMTPImplicitTLS:
		opts, port = append(opts, mail.WithSSL()), smtpDefaultPort(port, 465)
	case SMTPNoTLS:
		opts, port = append(opts, mail.WithTLSPolicy(mail.NoTLS)), smtpDefaultPort(port, 25)
	default:
		return nil, fmt.Errorf("smtp: tls must be starttls, opportunistic, tls or none, not %q", cfg.TLS)
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("smtp: port %d out of range", cfg.Port)
	}
	timeout := cfg.Timeout
	if timeout < 0 {
		return nil, fmt.Errorf("smtp: negative timeout %s", cfg.Timeout)
	}
	if timeout == 0 {
		timeout = DefaultSMTPTimeout
	}
	opts = append(opts, mail.WithPort(port), mail.WithTimeout(timeout))
	if cfg.HelloName != "" {
		opts = append(opts, mail.WithHELO(cfg.HelloName))
	}
	switch {
	case cfg.Username != "" && mode == SMTPNoTLS:
		opts = append(opts, mail.WithUsername(cfg.Username), mail.WithPassword(cfg.Password),
			mail.WithOpportunisticSMTPAuth(mail.SMTPAuthPlainNoEnc, mail.SMTPAuthLoginNoEnc))
	case cfg.Username != "":
		opts = append(opts, mail.WithUsername(cfg.Username), mail.WithPassword(cfg.Password),
			mail.WithOpportunisticSMTPAuth(mail.SMTPAuthPlain, mail.SMTPAuthLogin))
	case cfg.Password != "":
		return nil, errors.New("smtp: password set without username")
	}
	// Build one client now so that option errors show at start-up, not at the first send.
	if _, err := mail.NewClient(host, opts...); err != nil {
		return nil, fmt.Errorf("smtp: %w", err)
	}
	return &SMTPChannel{host: host, opts: opts}, nil
}

func smtpDefaultPort(port, def int) int {
	if port == 0 {
		return def
	}
	return port
}

// Name returns "smtp".
func (c *SMTPChannel) Name() string { return ChannelSMTP }

// Send mails the occurrence to its contact and returns the Message-ID. The Message-ID comes
// from the occurrence key, so a retried send carries the same id and receivers that
// deduplicate on it show one message.
func (c *SMTPChannel) Send(ctx context.Context, o *answerdesk.Occurrence) (string, error) {
	msg, id, err := buildEmail(o)
	if err != nil {
		return "", Permanent(err)
	}
	// A client per send: go-mail's Client keeps per-connection auth state, and the
	// scheduler may send several occurrences at once.
	client, err := mail.NewClient(c.host, c.opts...)
	if err != nil {
		return "", fmt.Errorf("smtp: %w", err)
	}
	// ctx bounds the dial; the configured timeout bounds each command after it.
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return "", classifySMTP(err)
	}
	return id, nil
}

// buildEmail renders an email To Do occurrence; every error is a defect of the To Do.
func buildEmail(o *answerdesk.Occurrence) (*mail.Msg, string, error) {
	t := o.ToDo
	if t == nil {
		return nil, "", errors.New("smtp: occurrence has no To Do")
	}
	if t.DeliveryType != answerdesk.DeliveryEmail {
		return nil, "", fmt.Errorf("smtp: cannot deliver a %q To Do by email", t.DeliveryType)
	}
	to := strings.TrimSpace(todoField(t.Contact))
	if to == "" {
		return nil, "", errors.New("email To Do has no contact address")
	}
	fromEmail := strings.TrimSpace(todoField(t.FromEmail))
	if fromEmail == "" {
		return nil, "", errors.New("email To Do has no from_email")
	}
	from, err := netmail.ParseAddress(fromEmail)
	if err != nil {
		return nil, "", fmt.Errorf("email To Do from_email %q: %w", fromEmail, err)
	}
	if t.MessageText == nil {
		return nil, "", errors.New("email To Do has no message_text")
	}
	subject := todoField(t.Subject)
	if strings.TrimSpace(subject) == "" {
		subject = t.Name
	}

	m := mail.NewMsg(mail.WithNoDefaultUserAgent())
	m.FromMailAddress(&netmail.Address{Name: strings.TrimSpace(todoField(t.SenderName)), Address: from.Address})
	if err := m.To(to); err != nil {
		return nil, "", fmt.Errorf("email To Do contact %q: %w", to, err)
	}
	m.Subject(subject)
	m.SetBodyString(mail.TypeTextPlain, *t.MessageText)
	id := messageID(o.Key, from.Address)
	m.SetMessageIDWithValue(id)
	m.SetGenHeader("X-Answerdesk-Occurrence", o.Key)
	m.SetUserAgent("answerdesk")
	return m, "<" + id + ">", nil
}

// messageID returns the Message-ID (without angle brackets) of an occurrence, in the
// sender's domain as RFC 5322 asks. The key is escaped to RFC 5322 atext ("=" and every
// byte outside atext become =XX) so that distinct keys keep distinct ids.
func messageID(key, fromAddress string) string {
	domain := strings.ToLower(fromAddress[strings.LastIndex(fromAddress, "@")+1:])
	var b strings.Builder
	b.WriteString("todo-occurrence-")
	for i := 0; i < len(key); i++ {
		ch := key[i]
		if ch != '=' && isAtext(ch) {
			b.WriteByte(ch)
		} else {
			fmt.Fprintf(&b, "=%02X", ch)
		}
	}
	return b.String() + "@" + domain
}

func isAtext(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' ||
		strings.IndexByte("!#$%&'*+-/=?^_`{|}~", ch) >= 0
}

// classifySMTP marks the failures a retry cannot fix as permanent: 5xx replies (RFC 5321
// §4.2.1) and messages go-mail cannot address. 4xx replies, network errors and timeouts stay
// transient.
func classifySMTP(err error) error {
	var se *mail.SendError
	if errors.As(err, &se) {
		if se.IsTemp() {
			return err
		}
		switch se.Reason {
		case mail.ErrGetSender, mail.ErrGetRcpts, mail.ErrNoUnencoded:
			return Permanent(err)
		}
		// IsTemp is false for local I/O errors as well, so only a 5xx reply code counts.
		if code := se.ErrorCode(); code >= 500 && code < 600 {
			return Permanent(err)
		}
		return err
	}
	// Replies before the message (greeting, EHLO, AUTH) come back as textproto errors.
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 && te.Code < 600 {
		return Permanent(err)
	}
	return err
}
