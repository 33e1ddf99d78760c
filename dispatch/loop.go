package dispatch

import (
	"context"
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
