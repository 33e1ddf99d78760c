package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// DefaultFetchBackoff is the wait before each retry of a recording fetch: Twilio may answer
// 404 for a moment after its callback, and its media host may be briefly unavailable.
var DefaultFetchBackoff = []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour}

// RecordingFetcher fetches the recordings Twilio's callbacks announced (the media URL with
// .wav, Basic auth with the account SID and auth token) and hands each to Ingest as the
// phone system's upload would be: streamed into the audio store, once per call sid. The
// fetches live in the database (Queue), so a restart loses none.
type RecordingFetcher struct {
	Queue  answerdesk.RecordingFetchQueue
	Ingest answerdesk.RecordingIngestService
	// Client fetches the media: NewFetchClient, which refuses private addresses unless
	// allowed, as deliveries do.
	Client                *http.Client
	AccountSID, AuthToken string

	Now     func() time.Time
	Lease   time.Duration   // default 10 min: a recording of 256 MiB takes a while
	Poll    time.Duration   // default 5 s
	Batch   int             // default 4, fetched concurrently
	Backoff []time.Duration // default DefaultFetchBackoff
	Logger  *slog.Logger

	once sync.Once
	waker
}

func (f *RecordingFetcher) init() {
	f.once.Do(func() {
		if f.Now == nil {
			f.Now = time.Now
		}
		if f.Lease <= 0 {
			f.Lease = 10 * time.Minute
		}
		if f.Poll <= 0 {
			f.Poll = 5 * time.Second
		}
		if f.Batch <= 0 {
			f.Batch = 4
		}
		if f.Backoff == nil {
			f.Backoff = DefaultFetchBackoff
		}
		if f.Logger == nil {
			f.Logger = slog.Default()
		}
	})
}

// Run fetches until ctx ends; Wake (a callback arrived) makes it look at once.
func (f *RecordingFetcher) Run(ctx context.Context) {
	f.init()
	runLoop(ctx, &f.waker, f.Poll, f.Batch, "recording fetcher", f.Logger, f.Tick)
}

// Tick fetches one batch of due recordings and returns how many it claimed.
func (f *RecordingFetcher) Tick(ctx context.Context) (int, error) {
	f.init()
	claimed, err := f.Queue.ClaimRecordingFetches(ctx, f.Now(), f.Lease, f.Batch)
	if err != nil || len(claimed) == 0 {
		return 0, err
	}
	settle := context.WithoutCancel(ctx)
	errs := parallel(claimed, f.Batch, func(c *answerdesk.ClaimedRecordingFetch) error {
		status, retryAt, errText := f.fetch(ctx, c)
		if ctx.Err() != nil && status != answerdesk.FetchDone {
			return nil // a stop cut it off: the lease runs out and another attempt takes it
		}
		if status != answerdesk.FetchDone {
			f.Logger.Warn("recording fetch", "recording_sid", c.RecordingSID, "status", status, "error", errText)
		} else {
			f.Logger.Info("recording fetch", "recording_sid", c.RecordingSID, "status", status)
		}
		return f.Queue.SettleRecordingFetch(settle, c, status, retryAt, errText)
	})
	for _, err := range errs {
		if err != nil {
			return len(claimed), err
		}
	}
	return len(claimed), nil
}

// fetch makes one attempt and says what follows.
func (f *RecordingFetcher) fetch(ctx context.Context, c *answerdesk.ClaimedRecordingFetch) (status string, retryAt time.Time, errText string) {
	retry := func(why string) (string, time.Time, string) {
		if c.Attempts >= len(f.Backoff) {
			return answerdesk.FetchFailed, time.Time{}, why
		}
		return answerdesk.FetchPending, f.Now().Add(jitter(f.Backoff[c.Attempts])), why
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+".wav", nil)
	if err != nil {
		return answerdesk.FetchFailed, time.Time{}, "the media URL is not valid: " + err.Error()
	}
	req.SetBasicAuth(f.AccountSID, f.AuthToken)
	resp, err := f.Client.Do(req)
	if err != nil {
		return retry("fetch the media: " + err.Error())
	}
	defer resp.Body.Close()
	switch s := resp.StatusCode; {
	case s == http.StatusOK:
	case s == http.StatusNotFound, s == http.StatusTooManyRequests, s == http.StatusRequestTimeout, s >= 500:
		return retry(fmt.Sprintf("the media URL answered %d", s))
	default:
		return answerdesk.FetchFailed, time.Time{}, fmt.Sprintf("the media URL answered %d", s)
	}
	in := &answerdesk.RecordingIngest{AccountNumber: c.AccountNumber}
	r := &in.Recording
	r.CallSID, r.StartedAt = c.CallSID, answerdesk.NewTime(c.StartedAt)
	r.CDR = answerdesk.CDR{CallType: "InboundCall", StartTime: r.StartedAt, CallCreatedAt: r.StartedAt, ConnectionSec: c.DurationSec}
	_, err = f.Ingest.IngestCallRecording(ctx, answerdesk.SystemCaller(), in, &answerdesk.AudioUpload{ContentType: "audio/wav", Body: resp.Body})
	switch code := answerdesk.ErrorCode(err); {
	case err == nil:
		return answerdesk.FetchDone, time.Time{}, ""
	case code == answerdesk.EINVALID, code == answerdesk.ETOOLARGE:
		return answerdesk.FetchFailed, time.Time{}, err.Error()
	default:
		return retry("store the recording: " + err.Error())
	}
}
