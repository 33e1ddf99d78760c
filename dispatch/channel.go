package dispatch

import (
	"context"
	"errors"

	"github.com/answerdesk/answerdesk"
)

// Channel names recorded on each delivery attempt (the To Dos docs page last_delivery.channel).
const (
	ChannelSMTP   = "smtp"
	ChannelTwilio = "twilio"
	ChannelOutbox = "outbox"
)

// Channel delivers one To Do occurrence through one provider.
type Channel interface {
	// Name is the channel recorded on each attempt: "smtp", "twilio" or "outbox".
	Name() string
	// Send delivers the occurrence and returns the provider's id for it (message id, SID).
	// An error wrapped by Permanent will not succeed on retry; any other error may.
	Send(ctx context.Context, o *answerdesk.Occurrence) (providerID string, err error)
}

// permanentError marks a failure that retrying cannot fix, so the scheduler records the
// occurrence as failed at once instead of spending its retries on it.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent wraps err as permanent: the same occurrence sent again will fail the same way.
// Permanent(nil) is nil, so it can wrap a result unconditionally.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err, or an error it wraps, was marked by Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// todoField reads an optional To Do field; the domain type keeps absent fields as nil pointers.
func todoField(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
