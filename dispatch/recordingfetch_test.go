package dispatch_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/dispatch"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/rest"
	"github.com/answerdesk/answerdesk/store"
)

// fakeTwilioMedia serves recordings as Twilio's media URLs do: RecordingUrl + ".wav", with
// Basic auth by the account SID and auth token. Its first answer for each recording is a
// 404, as Twilio's may be right after the callback.
type fakeTwilioMedia struct {
	*httptest.Server
	sid, token string
	audio      map[string][]byte // by path without the extension
	mu         sync.Mutex
	requests   map[string]int
}

func newFakeTwilioMedia(t *testing.T, sid, token string) *fakeTwilioMedia {
	f := &fakeTwilioMedia{sid: sid, token: token, audio: map[string][]byte{}, requests: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != f.sid || pass != f.token {
			http.Error(w, "authenticate", http.StatusUnauthorized)
			return
		}
		path, ok := strings.CutSuffix(r.URL.Path, ".wav")
		f.mu.Lock()
		f.requests[path]++
		n := f.requests[path]
		f.mu.Unlock()
		audio, found := f.audio[path]
		if !ok || !found || n == 1 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "audio/x-wav")
		w.Write(audio)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeTwilioMedia) fetched(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[path]
}

// TestTwilioRecordingCallback: Twilio's RecordingStatusCallback is checked (signature, media
// host, status), answered 204 at once, and the recording is fetched in the background,
// retried while the media is not there yet, and stored once however often Twilio calls back.
func TestTwilioRecordingCallback(t *testing.T) {
	const sid, token = "AC0123456789abcdef0123456789abcdef", "twilio-auth-token-for-tests"
	app := testapp.New(t)
	media := newFakeTwilioMedia(t, sid, token)
	recPath := "/2010-04-01/Accounts/" + sid + "/Recordings/RE0001"
	audio := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt "), bytes.Repeat([]byte{1, 2, 3, 4}, 50_000)...)
	media.audio[recPath] = audio

	fetches := store.NewRecordingFetches(app.DB)
	mediaURL, _ := url.Parse(media.URL)
	app.Rest.Twilio = rest.TwilioHooks{AuthToken: token, MediaHost: mediaURL.Host, Fetches: fetches}
	app.Server.Config.Handler = app.Rest.Handler()
	fetcher := &dispatch.RecordingFetcher{Queue: fetches, Ingest: app.Recordings, Client: dispatch.NewFetchClient("test", true),
		AccountSID: sid, AuthToken: token, Now: app.Clock.Now, Logger: quiet}

	hook := "/hooks/twilio/recording?account=1001"
	form := url.Values{"AccountSid": {sid}, "CallSid": {"CA0000000000000000000000000000beef"}, "RecordingSid": {"RE0001"},
		"RecordingUrl": {media.URL + recPath}, "RecordingStatus": {"completed"}, "RecordingDuration": {"42"},
		"RecordingStartTime": {"Sun, 22 Nov 2026 09:15:02 +0000"}}
	post := func(t *testing.T, form url.Values, signature string) *testapp.Response {
		t.Helper()
		return app.DoWith(t, "POST", hook, "", form.Encode(), http.Header{"Content-Type": {"application/x-www-form-urlencoded"},
			"X-Twilio-Signature": {signature}})
	}
	sign := func(form url.Values) string { return answerdesk.TwilioSignature(token, app.Server.URL+hook, form) }
	queued := func(t *testing.T) int {
		t.Helper()
		var n int
		if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM recording_fetches`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("refused", func(t *testing.T) {
		if r := post(t, form, sign(url.Values{"RecordingSid": {"RE0001"}})); r.Status != 403 {
			t.Errorf("a signature of another form: %d %s, want 403", r.Status, r.Body)
		}
		if r := post(t, form, ""); r.Status != 403 {
			t.Errorf("no signature: %d, want 403", r.Status)
		}
		other := url.Values{}
		for k, v := range form {
			other[k] = v
		}
		other.Set("RecordingUrl", "https://169.254.169.254/latest/meta-data")
		if r := post(t, other, sign(other)); r.Status != 422 || !strings.Contains(string(r.Body), "RecordingUrl") {
			t.Errorf("media on another host: %d %s, want 422 on RecordingUrl", r.Status, r.Body)
		}
		inProgress := url.Values{}
		for k, v := range form {
			inProgress[k] = v
		}
		inProgress.Set("RecordingStatus", "in-progress")
		if r := post(t, inProgress, sign(inProgress)); r.Status != 204 {
			t.Errorf("in progress: %d %s, want 204", r.Status, r.Body)
		}
		if n := queued(t); n != 0 {
			t.Fatalf("%d fetches queued by refused callbacks", n)
		}
	})

	for range 3 { // Twilio retries a callback it thinks failed
		if r := post(t, form, sign(form)); r.Status != 204 {
			t.Fatalf("callback: %d %s", r.Status, r.Body)
		}
	}
	if n := queued(t); n != 1 {
		t.Fatalf("%d fetches queued, want 1", n)
	}
	ctx := context.Background()
	if _, err := fetcher.Tick(ctx); err != nil { // the media answers 404 at first
		t.Fatal(err)
	}
	app.Clock.Advance(time.Minute)
	if _, err := fetcher.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := media.fetched(recPath); n != 2 {
		t.Fatalf("media fetched %d times, want 2 (404, then the audio)", n)
	}
	var rec struct {
		id       int64
		duration int64
	}
	if err := app.DB.SQL().QueryRow(`SELECT id, connection_sec FROM call_recordings WHERE call_sid = 'CA0000000000000000000000000000beef'`).
		Scan(&rec.id, &rec.duration); err != nil {
		t.Fatalf("the recording was not stored: %v", err)
	}
	got := app.Do(t, "GET", strings.TrimPrefix(app.Signer.URL(rec.id), app.Server.URL), "", nil)
	if got.Status != 200 || !bytes.Equal(got.Body, audio) || rec.duration != 42 {
		t.Fatalf("audio %d, %d bytes (want %d), duration %d", got.Status, len(got.Body), len(audio), rec.duration)
	}
	// Called back again after the fetch: nothing more is fetched or stored.
	if r := post(t, form, sign(form)); r.Status != 204 {
		t.Fatalf("callback: %d", r.Status)
	}
	app.Clock.Advance(time.Hour)
	if _, err := fetcher.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM call_recordings`).Scan(&rows); err != nil || rows != 1 || media.fetched(recPath) != 2 {
		t.Fatalf("%d recordings, media fetched %d times; want 1 and 2", rows, media.fetched(recPath))
	}
}
