package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// waker is the wake-up signal of a worker loop: Wake asks for a look at the work now.
type waker struct {
	once sync.Once
	ch   chan struct{}
}

func (w *waker) c() chan struct{} {
	w.once.Do(func() { w.ch = make(chan struct{}, 1) })
	return w.ch
}

// Wake makes the loop look for work now rather than at its next poll.
func (w *waker) Wake() {
	select {
	case w.c() <- struct{}{}:
	default:
	}
}

// runLoop calls tick when woken and every poll until ctx ends. A tick that used its whole
// batch is followed by another at once, so a backlog drains without waiting for the poll.
func runLoop(ctx context.Context, w *waker, poll time.Duration, batch int, name string, logger *slog.Logger, tick func(context.Context) (int, error)) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-w.c():
		}
		for ctx.Err() == nil {
			n, err := tick(ctx)
			if err != nil && ctx.Err() == nil {
				logger.ErrorContext(ctx, name, "err", err)
			}
			if err != nil || n < batch {
				break
			}
		}
		timer.Reset(poll)
	}
}

// parallel calls f on every item with at most workers at a time and returns the results in
// item order.
func parallel[T, R any](items []T, workers int, f func(T) R) []R {
	out := make([]R, len(items))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(items)) {
		wg.Go(func() {
			for i := range work {
				out[i] = f(items[i])
			}
		})
	}
	for i := range items {
		work <- i
	}
	close(work)
	wg.Wait()
	return out
}

// sendAndSettle sends every item with at most workers at a time and settles the outcomes as
// they arrive: each settle call takes every outcome that has arrived meanwhile, so under
// light load an answer is recorded at once and under heavy load the writes group themselves.
// A nil outcome means the send was cut off before the other side answered; those go to
// settle's cutOff. A crash then repeats only what had no recorded answer.
func sendAndSettle[T, O any](items []T, workers int, send func(T) *O, settle func(done []O, cutOff []T) error) error {
	type result struct {
		item T
		out  *O
	}
	arrived := make(chan result, len(items))
	go parallel(items, workers, func(item T) struct{} {
		arrived <- result{item, send(item)}
		return struct{}{}
	})
	var errs []error
	for left := len(items); left > 0; {
		group := []result{<-arrived}
		for more := true; more; {
			select {
			case r := <-arrived:
				group = append(group, r)
			default:
				more = false
			}
		}
		left -= len(group)
		var done []O
		var cutOff []T
		for _, r := range group {
			if r.out == nil {
				cutOff = append(cutOff, r.item)
			} else {
				done = append(done, *r.out)
			}
		}
		errs = append(errs, settle(done, cutOff))
	}
	return errors.Join(errs...)
}
