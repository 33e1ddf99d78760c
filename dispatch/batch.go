package dispatch

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// BatchRunner runs the public API's asynchronous batches: it leases pending jobs, executes
// their operations, stores the responses, and deletes jobs past their 24 hours.
type BatchRunner struct {
	Store   answerdesk.BatchJobStore
	Execute func(ctx context.Context, sandbox bool, reqs []answerdesk.BatchRequest) []answerdesk.BatchResponse
	Now     func() time.Time
	Logger  *slog.Logger

	once sync.Once
	waker
}

const batchJobsPerTick = 10

func (b *BatchRunner) init() {
	b.once.Do(func() {
		if b.Now == nil {
			b.Now = time.Now
		}
		if b.Logger == nil {
			b.Logger = slog.Default()
		}
	})
}

// Run runs jobs until ctx ends; Wake (a new job) makes it look at once.
func (b *BatchRunner) Run(ctx context.Context) {
	b.init()
	runLoop(ctx, &b.waker, time.Second, batchJobsPerTick, "batch jobs", b.Logger, b.Tick)
}

// Tick purges expired jobs and runs up to batchJobsPerTick pending ones.
func (b *BatchRunner) Tick(ctx context.Context) (int, error) {
	b.init()
	now := b.Now()
	if _, err := b.Store.PurgeBatchJobs(ctx, now); err != nil {
		return 0, err
	}
	jobs, err := b.Store.ClaimBatchJobs(ctx, now, time.Minute, batchJobsPerTick)
	if err != nil {
		return 0, err
	}
	for _, j := range jobs {
		// The job's id stands for the request id of its operations' log lines.
		jctx := answerdesk.NewContextWithRequestID(ctx, "batch-job-"+j.ID)
		resps := answerdesk.CapBatchResponses(b.Execute(jctx, j.Sandbox, j.Requests), answerdesk.MaxBatchJobResponseBytes)
		if err := b.Store.CompleteBatchJob(ctx, j.ID, resps, b.Now()); err != nil {
			return len(jobs), err
		}
	}
	return len(jobs), nil
}
