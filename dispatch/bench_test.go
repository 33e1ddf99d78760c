package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// timedQueue measures the time the scheduler spends in each queue operation.
type timedQueue struct {
	answerdesk.ToDoQueue
	materialize, claim, record time.Duration
}

func (q *timedQueue) MaterializeDue(ctx context.Context, now time.Time, limit int, f func(string) string) (int, error) {
	start := time.Now()
	defer func() { q.materialize += time.Since(start) }()
	return q.ToDoQueue.MaterializeDue(ctx, now, limit, f)
}

func (q *timedQueue) ClaimOccurrences(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*answerdesk.Occurrence, error) {
	start := time.Now()
	defer func() { q.claim += time.Since(start) }()
	return q.ToDoQueue.ClaimOccurrences(ctx, now, lease, limit)
}

func (q *timedQueue) RecordAttempts(ctx context.Context, rs []answerdesk.AttemptResult) error {
	start := time.Now()
	defer func() { q.record += time.Since(start) }()
	return q.ToDoQueue.RecordAttempts(ctx, rs)
}

// BenchmarkSchedulerTick delivers 1,000 due occurrences out of 10,000 recurring To Dos to the
// outbox per iteration (one simulated day), and reports occurrences/s and the time per
// occurrence spent materialising, claiming and recording.
func BenchmarkSchedulerTick(b *testing.B) {
	app := testapp.New(b)
	ny, _ := time.LoadLocation("America/New_York")
	app.Clock.Set(time.Date(2026, 11, 20, 10, 0, 0, 0, ny))
	create := func(body string) { app.CreateToDo(b, app.Alice, body) }
	for range 1000 { // due every day at 09:45, first tomorrow
		create(`{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","times":["09:45"]}}`)
	}
	for range 9000 { // recurring but idle: every 1,000 days
		create(`{"account_number":"1001","delivery_type":"call","instructions":"x","schedule":{"frequency":"daily","interval":1000,"times":["09:30"]}}`)
	}
	q := &timedQueue{ToDoQueue: app.ToDos}
	s := newScheduler(app)
	s.Queue = q
	delivered := 0
	b.ResetTimer()
	for b.Loop() {
		app.Clock.Advance(24 * time.Hour)
		for {
			n, err := s.Tick(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			delivered += n
			if n == 0 {
				break
			}
		}
	}
	elapsed := b.Elapsed()
	if delivered != 1000*b.N {
		b.Fatalf("delivered %d occurrences in %d days, want %d", delivered, b.N, 1000*b.N)
	}
	b.ReportMetric(float64(delivered)/elapsed.Seconds(), "occurrences/s")
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(delivered) }
	b.ReportMetric(per(q.materialize), "materialize-µs/occ")
	b.ReportMetric(per(q.claim), "claim-µs/occ")
	b.ReportMetric(per(q.record), "record-µs/occ")
}
