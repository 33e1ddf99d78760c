package answerdesk

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"slices"
	"time"
)

// TwilioSignature is the X-Twilio-Signature of a request Twilio sends to fullURL (the URL
// it was configured with, query included) with the POST form: the base64 HMAC-SHA1, keyed
// with the account's auth token, of the URL followed by every form parameter's name and
// value, sorted by name (Twilio's rule for webhooks).
func TwilioSignature(authToken, fullURL string, form url.Values) string {
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(fullURL))
	names := make([]string, 0, len(form))
	for name := range form {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		values := slices.Clone(form[name])
		slices.Sort(values)
		for _, v := range values {
			mac.Write([]byte(name))
			mac.Write([]byte(v))
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// ValidTwilioSignature reports, in constant time, whether signature is the request's.
func ValidTwilioSignature(authToken, fullURL string, form url.Values, signature string) bool {
	return hmac.Equal([]byte(TwilioSignature(authToken, fullURL, form)), []byte(signature))
}

// RecordingFetch is a recording the phone system said is ready (Twilio's
// RecordingStatusCallback): the worker fetches URL into the audio store and records it for
// the account, with CallSID as its call_sid.
type RecordingFetch struct {
	AccountNumber string
	RecordingSID  string
	CallSID       string
	URL           string // the media URL, without an extension
	StartedAt     time.Time
	DurationSec   int64
}

// ClaimedRecordingFetch is a fetch leased by the worker.
type ClaimedRecordingFetch struct {
	RecordingFetch
	ID       int64
	Attempts int   // attempts before this one: what the backoff counts
	Claim    int64 // this attempt's claim; settling an older one changes nothing
}

// Statuses of a recording fetch.
const (
	FetchPending = "pending"
	FetchDone    = "done"
	FetchFailed  = "failed"
)

// RecordingFetchQueue keeps the fetches durable: a restart loses none, and each is fetched
// by one worker at a time, on whichever replica.
type RecordingFetchQueue interface {
	// EnqueueRecordingFetch queues f once per RecordingSID: a callback repeated for the same
	// recording changes nothing. An unknown account is an EINVALID error on "account".
	EnqueueRecordingFetch(ctx context.Context, f *RecordingFetch) error
	// ClaimRecordingFetches leases due fetches.
	ClaimRecordingFetches(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*ClaimedRecordingFetch, error)
	// SettleRecordingFetch records an attempt: status FetchDone, FetchFailed, or
	// FetchPending to try again at retryAt; errText says why it did not succeed.
	SettleRecordingFetch(ctx context.Context, f *ClaimedRecordingFetch, status string, retryAt time.Time, errText string) error
}
