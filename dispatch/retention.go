// Package dispatch runs answerdesk's background work. Every worker claims its work from the
// store, so a restart loses nothing, and returns when its context ends.
package dispatch

import (
	"context"
	"log/slog"
	"time"

	"github.com/answerdesk/answerdesk"
)

// Default retention of recording data (the Call recordings docs page).
const (
	DefaultAudioRetention     = 31 * 24 * time.Hour
	DefaultRecordingRetention = 3 * 365 * 24 * time.Hour
)

// Retention removes recording audio and rows past their retention, once at start and then
// every Interval.
type Retention struct {
	Service  answerdesk.RetentionService
	AudioAge time.Duration // audio older than this is deleted
	RowAge   time.Duration // whole recordings (CDR) older than this are deleted
	Interval time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
	// Expired, when set, also deletes expired OAuth codes, tokens and sign-in sessions.
	Expired answerdesk.ExpiredPurger
}

// RunOnce enforces the retention now.
func (r *Retention) RunOnce(ctx context.Context) error {
	now := r.Now()
	audio, rows, err := r.Service.PurgeRecordings(ctx, now.Add(-r.AudioAge), now.Add(-r.RowAge))
	if err != nil {
		return err
	}
	if audio > 0 || rows > 0 {
		r.Logger.InfoContext(ctx, "retention", "audio_removed", audio, "recordings_removed", rows)
	}
	swept, err := r.Service.SweepAudio(ctx)
	if err != nil {
		return err
	}
	if swept > 0 {
		r.Logger.InfoContext(ctx, "retention", "orphaned_audio_removed", swept)
	}
	if r.Expired != nil {
		n, err := r.Expired.PurgeExpired(ctx, now)
		if err != nil {
			return err
		}
		if n > 0 {
			r.Logger.InfoContext(ctx, "retention", "expired_credentials_removed", n)
		}
	}
	return nil
}

// Run enforces the retention until ctx ends.
func (r *Retention) Run(ctx context.Context) {
	t := time.NewTicker(r.Interval)
	defer t.Stop()
	for {
		if err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
			r.Logger.ErrorContext(ctx, "retention", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
