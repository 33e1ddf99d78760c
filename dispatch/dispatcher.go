package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// DefaultDispatchBackoff is the wait before each retry of a delivery (the External API dispatching docs page); after
// the last one the delivery is failed and can be replayed.
var DefaultDispatchBackoff = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute,
	30 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour}

// Dispatcher pushes messages to customer endpoints. Each tick it escalates messages whose
// level timed out, leases due deliveries, sends them concurrently and records every
// attempt. Deliveries live in the database (written with their message), so a crash loses
// nothing: what was in flight is taken over when its lease expires.
type Dispatcher struct {
	Queue  answerdesk.DispatchQueue
	Client *WebhookClient

	Now     func() time.Time
	Lease   time.Duration   // default 1 min
	Poll    time.Duration   // default 1 s
	Batch   int             // default 2 × Workers: two rounds of 10 s requests fit well inside the lease
	Workers int             // concurrent requests, default 16
	Backoff []time.Duration // default DefaultDispatchBackoff
	Logger  *slog.Logger

	once sync.Once
	waker
}

func (d *Dispatcher) init() {
	d.once.Do(func() {
		if d.Now == nil {
			d.Now = time.Now
		}
		if d.Lease <= 0 {
			d.Lease = time.Minute
		}
		if d.Poll <= 0 {
			d.Poll = time.Second
		}
		if d.Workers <= 0 {
			d.Workers = 16
		}
		if d.Batch <= 0 {
			d.Batch = 2 * d.Workers
		}
		if d.Backoff == nil {
			d.Backoff = DefaultDispatchBackoff
		}
		if d.Logger == nil {
			d.Logger = slog.Default()
		}
	})
}

// Run dispatches until ctx ends; Wake (a new message, a replay) makes it look at once.
func (d *Dispatcher) Run(ctx context.Context) {
	d.init()
	runLoop(ctx, &d.waker, d.Poll, d.Batch, "dispatcher", d.Logger, d.Tick)
}

// Tick escalates due messages and sends one batch of deliveries; it returns how many
// deliveries it claimed.
func (d *Dispatcher) Tick(ctx context.Context) (int, error) {
	d.init()
	now := d.Now()
	if _, err := d.Queue.EscalateDue(ctx, now, d.Batch); err != nil {
		return 0, err
	}
	claimed, err := d.Queue.ClaimDeliveries(ctx, now, d.Lease, d.Batch)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	// Recorded with a context a stop does not cancel: an endpoint that answered is not sent
	// the same delivery again after a restart.
	settle := context.WithoutCancel(ctx)
	err = sendAndSettle(claimed, d.Workers, func(c *answerdesk.ClaimedDelivery) *answerdesk.DeliveryOutcome { return d.send(ctx, c) },
		func(done []answerdesk.DeliveryOutcome, cutOff []*answerdesk.ClaimedDelivery) error {
			return errors.Join(d.Queue.RecordDeliveryOutcomes(settle, done), d.Queue.ReleaseDeliveries(settle, cutOff, d.Now()))
		})
	return len(claimed), err
}

// send makes one attempt and decides what follows; nil means it was cut off by a cancel
// before the endpoint answered.
//
// The body is rendered here, for this attempt only, within the delivery's share of its
// message's budget: bodies are never stored, so a message whose deliveries wait for their
// retries holds no more of the database than their rows.
func (d *Dispatcher) send(ctx context.Context, c *answerdesk.ClaimedDelivery) *answerdesk.DeliveryOutcome {
	body, contentType, warnings, err := answerdesk.RenderPayloadWithin(c.PayloadType, c.Fields, c.Merge, c.BodyLimit)
	if err != nil {
		// A payload type the method was validated against cannot fail; this one cannot be sent.
		d.Logger.Error("dispatch: render", "delivery", c.UUID, "err", err)
		return &answerdesk.DeliveryOutcome{Delivery: c, At: d.Now(), Status: answerdesk.DispatchFailed, Error: "not sent: the body could not be rendered"}
	}
	res := d.Client.Send(ctx, &Webhook{ID: c.UUID, URL: c.URL, ContentType: contentType, Body: body, Headers: c.Headers,
		BasicUser: c.BasicUser, BasicPass: c.BasicPass, SigningSecret: c.SigningSecret})
	if res.Err != nil && res.StatusCode == 0 && ctx.Err() != nil {
		return nil
	}
	o := &answerdesk.DeliveryOutcome{Delivery: c, At: d.Now(), HTTPStatus: res.StatusCode, Duration: res.Duration, Excerpt: res.Excerpt,
		Warnings: warnings}
	if res.Err != nil {
		// The customer sees the summary; the error itself may name the service's resolver and
		// the addresses it resolved, so it goes to the operator's log only.
		o.Error = res.Summary
	}
	switch res.Outcome() {
	case WebhookDelivered:
		o.Status = answerdesk.DispatchDelivered
	case WebhookGone:
		o.Status, o.DisableMethod = answerdesk.DispatchFailed, "the endpoint answered 410 Gone"
	case WebhookRetry:
		if c.Attempts >= len(d.Backoff) {
			o.Status = answerdesk.DispatchFailed
			break
		}
		wait := jitter(d.Backoff[c.Attempts])
		if res.RetryAfter > 0 {
			wait = res.RetryAfter // the endpoint said when; honour it
		}
		o.Status, o.RetryAt = answerdesk.DispatchPending, o.At.Add(wait)
	default:
		o.Status = answerdesk.DispatchFailed
	}
	if o.Status != answerdesk.DispatchDelivered {
		d.Logger.Warn("dispatch attempt", "delivery", c.UUID, "url", c.URL, "status", res.StatusCode, "error", o.Error, "cause", res.Err, "outcome", o.Status)
	}
	return o
}
