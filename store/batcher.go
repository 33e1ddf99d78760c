package store

import "sync"

// batcher runs the work of concurrent callers in batches, one batch at a time: the first
// caller to find no batch running leads, runs every item queued (its own among them) in one
// go, then hands the lead to the first caller that queued meanwhile and wakes the others
// of its batch. Each caller wakes once, either with its item done or to lead, and a leader
// runs one batch only, so no caller waits for more than the batch running when it came
// and its own.
//
// The group commit of SQLite's writer (groupcommit.go) and the shared version probe on
// PostgreSQL (versionprobe.go) are batchers: under load one commit or one round trip serves
// a batch of requests instead of one each.
type batcher[T any] struct {
	mu      sync.Mutex
	queue   []*batchItem[T]
	running bool
	batches uint64 // batches run (read by the tests)
}

type batchItem[T any] struct {
	v  T
	ch chan bool // true: lead the next batch; false: done
}

// do queues v and returns once a batch holding it has been run by run, which gets the
// batch's items in the order they came. run must set its results in the items (T is a
// pointer) and must not panic.
func (b *batcher[T]) do(v T, run func(batch []T)) {
	it := &batchItem[T]{v: v, ch: make(chan bool, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, it)
	lead := !b.running
	b.running = true
	b.mu.Unlock()
	if !lead && !<-it.ch {
		return
	}
	b.mu.Lock()
	items := b.queue
	b.queue = nil
	b.batches++
	b.mu.Unlock()
	batch := make([]T, len(items))
	for i, o := range items {
		batch[i] = o.v
	}
	run(batch)
	b.mu.Lock()
	if len(b.queue) > 0 {
		b.queue[0].ch <- true
	} else {
		b.running = false
	}
	b.mu.Unlock()
	for _, o := range items {
		if o != it {
			o.ch <- false
		}
	}
}

// count returns the batches run so far.
func (b *batcher[T]) count() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.batches
}
