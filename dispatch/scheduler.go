package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// DefaultToDoBackoff is how long a transient delivery failure waits before each retry;
// after the last one the occurrence is failed.
var DefaultToDoBackoff = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, 2 * time.Hour}

// Scheduler delivers To Do occurrences. Each tick it turns due schedules into occurrences,
// leases a batch, sends them concurrently through their channels and records every attempt.
// Everything it holds is in the database: a crash loses at most the in-flight batch's
// outcomes, and those occurrences are taken over when their lease expires.
type Scheduler struct {
	Queue answerdesk.ToDoQueue
	// Email, SMS and Voice are the provider channels; a nil one means Outbox is used.
	Email, SMS, Voice Channel
	Outbox            Channel

	Now     func() time.Time
	Lease   time.Duration   // how long a claimed occurrence is held (default 2 min)
	Poll    time.Duration   // how often due work is looked for without a wake-up (default 1 s)
	Batch   int             // occurrences per tick (default 200)
	Workers int             // concurrent sends (default 8)
	Backoff []time.Duration // waits between transient failures (default DefaultToDoBackoff)
	Logger  *slog.Logger

	once sync.Once
	waker
}

func (s *Scheduler) init() {
	s.once.Do(func() {
		if s.Now == nil {
			s.Now = time.Now
		}
		if s.Lease <= 0 {
			s.Lease = 2 * time.Minute
		}
		if s.Poll <= 0 {
			s.Poll = time.Second
		}
		if s.Batch <= 0 {
			s.Batch = 200
		}
		if s.Workers <= 0 {
			s.Workers = 8
		}
		if s.Backoff == nil {
			s.Backoff = DefaultToDoBackoff
		}
		if s.Logger == nil {
			s.Logger = slog.Default()
		}
	})
}

// Run delivers due occurrences until ctx ends; Wake (a To Do created with "immediately")
// makes it look at once. In-flight sends are cut off on cancel; those the provider had not
// answered are released for the next start.
func (s *Scheduler) Run(ctx context.Context) {
	s.init()
	runLoop(ctx, &s.waker, s.Poll, s.Batch, "to-do scheduler", s.Logger, s.Tick)
}

// channelFor picks the channel of a To Do: its provider when configured, else the outbox.
// A call without a number to ring is a task for a live agent, which the outbox records.
func (s *Scheduler) channelFor(t *answerdesk.ToDo) Channel {
	var ch Channel
	switch t.DeliveryType {
	case answerdesk.DeliveryEmail:
		ch = s.Email
	case answerdesk.DeliverySMS:
		ch = s.SMS
	case answerdesk.DeliveryCall, answerdesk.DeliveryAIOutboundCall:
		if t.Contact != nil {
			ch = s.Voice
		}
	}
	if ch == nil {
		return s.Outbox
	}
	return ch
}

func (s *Scheduler) channelName(deliveryType string) string {
	return s.channelFor(&answerdesk.ToDo{DeliveryType: deliveryType, Contact: new(string)}).Name()
}

// Tick materialises due schedules and delivers one batch of occurrences. It returns how
// many occurrences it claimed.
func (s *Scheduler) Tick(ctx context.Context) (int, error) {
	s.init()
	now := s.Now()
	if _, err := s.Queue.MaterializeDue(ctx, now, s.Batch, s.channelName); err != nil {
		return 0, err
	}
	occs, err := s.Queue.ClaimOccurrences(ctx, now, s.Lease, s.Batch)
	if err != nil || len(occs) == 0 {
		return 0, err
	}
	// Recorded with a context a stop does not cancel: a provider that answered must not be
	// sent the same occurrence again after a restart.
	settle := context.WithoutCancel(ctx)
	err = sendAndSettle(occs, s.Workers, func(o *answerdesk.Occurrence) *answerdesk.AttemptResult { return s.deliver(ctx, o) },
		func(done []answerdesk.AttemptResult, cutOff []*answerdesk.Occurrence) error {
			return errors.Join(s.Queue.RecordAttempts(settle, done), s.Queue.ReleaseOccurrences(settle, cutOff, s.Now()))
		})
	return len(occs), err
}

// deliver sends one occurrence and returns its outcome, or nil when the send was cut off
// by cancellation before the provider answered, or did not start (see StartOccurrence).
func (s *Scheduler) deliver(ctx context.Context, o *answerdesk.Occurrence) *answerdesk.AttemptResult {
	if ok, err := s.Queue.StartOccurrence(ctx, o, s.Now(), s.Lease); err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			s.Logger.Error("to-do delivery not started", "to_do_id", o.ToDo.ID, "key", o.Key, "error", err)
		}
		return nil
	}
	ch := s.channelFor(o.ToDo)
	start := time.Now()
	providerID, err := ch.Send(ctx, o)
	r := &answerdesk.AttemptResult{Occurrence: o, Channel: ch.Name(), At: s.Now(), Duration: time.Since(start), ProviderID: providerID}
	switch {
	case err == nil:
		r.Status = answerdesk.AttemptSent
	case ctx.Err() != nil && !IsPermanent(err):
		return nil
	case IsPermanent(err):
		r.Status, r.Error = answerdesk.AttemptFailed, err.Error()
	case o.Attempts < len(s.Backoff):
		r.Status, r.Error = answerdesk.AttemptRetry, err.Error()
		r.RetryAt = r.At.Add(jitter(s.Backoff[o.Attempts]))
	default:
		r.Status, r.Error = answerdesk.AttemptFailed, err.Error()+" (no retries left)"
	}
	level := slog.LevelInfo
	if r.Status != answerdesk.AttemptSent {
		level = slog.LevelWarn
	}
	s.Logger.Log(ctx, level, "to-do delivery", "to_do_id", o.ToDo.ID, "key", o.Key, "channel", r.Channel,
		"status", r.Status, "provider_id", providerID, "error", r.Error)
	return r
}

// jitter spreads d by ±20%, so retries of many occurrences that failed together do not
// arrive at the provider together.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
