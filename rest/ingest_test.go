package rest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/store"
)

// wav is a small RIFF WAVE file: a header and a few samples.
func wav(samples int) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data")
	b = append(b, 0, 0, 0, 0)
	for i := range samples {
		b = append(b, byte(i), byte(i>>8))
	}
	return b
}

// ingestBody is a multipart body of a metadata part and, when audio is not nil, an audio
// part of the content type.
func ingestBody(t testing.TB, meta any, contentType string, audio []byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	raw, ok := meta.(string)
	if !ok {
		b, err := json.Marshal(meta)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="metadata"`)
	h.Set("Content-Type", "application/json")
	w, _ := mw.CreatePart(h)
	io.WriteString(w, raw)
	if audio != nil {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="audio"; filename="call.wav"`)
		h.Set("Content-Type", contentType)
		w, _ := mw.CreatePart(h)
		w.Write(audio)
	}
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

func ingest(t testing.TB, app *testapp.App, token string, meta any, contentType string, audio []byte) *testapp.Response {
	t.Helper()
	ct, body := ingestBody(t, meta, contentType, audio)
	return app.DoWith(t, "POST", "/api/v2/call-recordings", token, body, http.Header{"Content-Type": {ct}})
}

func callMeta(sid string) map[string]any {
	return map[string]any{"account_number": "1001", "call_sid": sid, "started_at": "2026-11-22T09:15:02Z",
		"call_id": 4711, "did_number": "+15550101001", "from": "+15555550142",
		"cdr": map[string]any{"agent_name": "AI Receptionist", "talk_sec": 61, "skill_name": "Acme Plumbing - Main"}}
}

// countAudio is how many objects the database's audio store holds.
func countAudio(t testing.TB, app *testapp.App) int {
	t.Helper()
	var n int
	if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM audio_objects`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIngestCallRecording: the phone system hands over a recording with its audio; it is
// served through its signed link (whole and by range), found on its message, and handing
// it over again stores nothing more.
func TestIngestCallRecording(t *testing.T) {
	app := testapp.New(t)
	audio := wav(4000)
	msg := app.CreateMessage(t, app.Alice, testapp.Start, map[string]any{})
	meta := callMeta("CAfeed0001")
	meta["message_id"] = msg.ID
	r := ingest(t, app, app.Admin.Token, meta, "audio/wav", audio)
	if r.Status != 200 {
		t.Fatalf("ingest: %d %s", r.Status, r.Body)
	}
	var got struct{ Data answerdesk.CallRecording }
	r.JSON(t, &got)
	rec := got.Data
	if rec.CallSID != "CAfeed0001" || rec.AccountNumber != "1001" || rec.CDR.TalkSec != 61 || rec.CDR.CallType != "InboundCall" ||
		rec.CDR.CallerID != "+15555550142" || rec.Recording == nil || rec.StartedAt.Format("15:04:05") != "09:15:02" {
		t.Fatalf("recording %+v", rec)
	}
	link := strings.TrimPrefix(*rec.Recording, app.Server.URL)
	whole := app.Do(t, "GET", link, "", nil)
	if whole.Status != 200 || !bytes.Equal(whole.Body, audio) || whole.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("audio: %d %s, %d bytes", whole.Status, whole.Header.Get("Content-Type"), len(whole.Body))
	}
	part := app.DoWith(t, "GET", link, "", nil, http.Header{"Range": {"bytes=100-1099"}})
	if part.Status != 206 || !bytes.Equal(part.Body, audio[100:1100]) {
		t.Fatalf("range: %d, %d bytes", part.Status, len(part.Body))
	}
	onMessage := app.Do(t, "GET", fmt.Sprintf("/api/v2/messages/%d/call-recording", msg.ID), app.Alice.Token, nil)
	if onMessage.Status != 200 || !strings.Contains(string(onMessage.Body), `"call_sid":"CAfeed0001"`) {
		t.Fatalf("the message's recording: %d %s", onMessage.Status, onMessage.Body)
	}

	objects := countAudio(t, app)
	again := ingest(t, app, app.Admin.Token, meta, "audio/wav", wav(100))
	var second struct{ Data answerdesk.CallRecording }
	again.JSON(t, &second)
	if again.Status != 200 || second.Data.ID != rec.ID {
		t.Fatalf("the same call again: %d %s, want recording %d", again.Status, again.Body, rec.ID)
	}
	if n := countAudio(t, app); n != objects {
		t.Fatalf("the same call again stored %d more objects", n-objects)
	}

	noAudio := ingest(t, app, app.Admin.Token, callMeta("CAfeed0002"), "", nil)
	if noAudio.Status != 200 || !strings.Contains(string(noAudio.Body), `"recording":null`) {
		t.Fatalf("without audio: %d %s", noAudio.Status, noAudio.Body)
	}
}

// TestIngestRefusesBadUploads: each bad upload is refused with the contract's error and
// leaves nothing stored: no row, no object.
func TestIngestRefusesBadUploads(t *testing.T) {
	app := testapp.New(t)
	app.Rest.MaxAudioBytes, app.Recordings.MaxAudioBytes = 64<<10, 64<<10
	mp3 := append([]byte("ID3\x04\x00\x00"), make([]byte, 200)...)
	for _, tc := range []struct {
		name        string
		meta        any
		contentType string
		audio       []byte
		status      int
		code, field string
	}{
		{"audio_not_of_its_type", callMeta("CAbad1"), "audio/wav", mp3, 422, "invalid_parameter", "audio"},
		{"type_not_audio", callMeta("CAbad2"), "text/plain", []byte("hello"), 422, "invalid_parameter", "audio"},
		{"too_large", callMeta("CAbad3"), "audio/wav", wav(40 << 10), 413, "payload_too_large", ""},
		{"empty_audio", callMeta("CAbad4"), "audio/wav", []byte{}, 422, "invalid_parameter", "audio"},
		{"no_call_sid", map[string]any{"account_number": "1001", "started_at": "2026-11-22T09:15:02Z"}, "audio/wav", wav(10), 422, "invalid_parameter", "call_sid"},
		{"bad_started_at", map[string]any{"account_number": "1001", "call_sid": "CAbad5", "started_at": "yesterday"}, "audio/wav", wav(10), 422, "invalid_parameter", "started_at"},
		{"cdr_wrong_type", map[string]any{"account_number": "1001", "call_sid": "CAbad6", "started_at": "2026-11-22T09:15:02Z", "cdr": map[string]any{"talk_sec": "long"}},
			"audio/wav", wav(10), 422, "invalid_parameter", "cdr.talk_sec"},
		{"metadata_not_json", "{not json", "audio/wav", wav(10), 400, "processing_error", ""},
		{"unknown_account", map[string]any{"account_number": "9999", "call_sid": "CAbad7", "started_at": "2026-11-22T09:15:02Z"}, "audio/wav", wav(10), 422, "invalid_parameter", "account_number"},
		{"message_of_another_account", map[string]any{"account_number": "1001", "call_sid": "CAbad8", "started_at": "2026-11-22T09:15:02Z", "message_id": 999999},
			"audio/wav", wav(10), 422, "invalid_parameter", "message_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ingest(t, app, app.Admin.Token, tc.meta, tc.contentType, tc.audio)
			var e struct {
				Status int
				Code   string
				Errors []answerdesk.FieldError
			}
			r.JSON(t, &e)
			if r.Status != tc.status || e.Code != tc.code || (tc.field != "" && (len(e.Errors) == 0 || e.Errors[0].Field != tc.field)) {
				t.Fatalf("%d %s, want %d %s on %q", r.Status, r.Body, tc.status, tc.code, tc.field)
			}
		})
	}
	if n := countAudio(t, app); n != 0 {
		t.Errorf("%d audio objects stored by refused uploads", n)
	}
	var rows int
	if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM call_recordings`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d recordings stored by refused uploads (%v)", rows, err)
	}
	if r := app.DoWith(t, "POST", "/api/v2/call-recordings", app.Admin.Token, `{"account_number":"1001"}`, nil); r.Status != 400 {
		t.Errorf("a JSON body: %d %s, want 400", r.Status, r.Body)
	}
}

// TestIngestCutOffStoresNothing: an upload whose connection drops midway leaves no row and
// no object.
func TestIngestCutOffStoresNothing(t *testing.T) {
	app := testapp.New(t)
	ct, body := ingestBody(t, callMeta("CAcut"), "audio/wav", wav(2<<20))
	conn, err := net.Dial("tcp", strings.TrimPrefix(app.Server.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /api/v2/call-recordings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		app.Admin.Token, ct, len(body))
	conn.Write(body[:len(body)/2])
	count := func(table string) int {
		var n int
		if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// The server is midway: the first chunks are stored.
	waitFor(t, "a chunk of the upload stored", func() bool { return count("audio_chunks") > 0 })
	conn.Close()
	waitFor(t, "the cut-off upload dropped", func() bool { return count("audio_objects") == 0 })
	if n := countAudio(t, app); n != 0 {
		t.Errorf("%d audio objects left by a cut-off upload", n)
	}
	var rows int
	if err := app.DB.SQL().QueryRow(`SELECT count(*) FROM call_recordings WHERE call_sid = 'CAcut'`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("%d recordings left by a cut-off upload (%v)", rows, err)
	}
}

// TestRecordingsWriteToken: a token narrowed to recordings:write hands over recordings for
// its user's accounts and can do nothing else; a full token of a member cannot hand over.
func TestRecordingsWriteToken(t *testing.T) {
	app := testapp.New(t)
	_, phone, err := store.NewTokenService(app.DB).CreateScopedToken(context.Background(), app.Alice.ID, "phone system",
		[]string{answerdesk.ScopeRecordingsWrite})
	if err != nil {
		t.Fatal(err)
	}
	if r := ingest(t, app, phone, callMeta("CAphone1"), "audio/wav", wav(100)); r.Status != 200 {
		t.Fatalf("ingest with the scoped token: %d %s", r.Status, r.Body)
	}
	other := callMeta("CAphone2")
	other["account_number"] = "1002"
	if r := ingest(t, app, phone, other, "audio/wav", wav(100)); r.Status != 422 || !strings.Contains(string(r.Body), `"field":"account_number"`) {
		t.Fatalf("another account: %d %s, want 422 on account_number", r.Status, r.Body)
	}
	for _, path := range []string{"/api/v2/messages", "/api/v2/call-recordings", "/api/v2/me", "/api/v2/accounts", "/api/v2/to-dos",
		"/api/v2/on-call-contacts", "/api/v2/users"} {
		r := app.Do(t, "GET", path, phone, nil)
		if r.Status != 403 {
			t.Errorf("GET %s with a recordings:write token: %d %.200s, want 403", path, r.Status, r.Body)
		}
		// A scope's refusal tells an API token's holder what to do about it (an admin-only
		// path is refused for being one, whatever the scopes).
		if path != "/api/v2/users" && !strings.Contains(string(r.Body), "use a token created without --scope") {
			t.Errorf("GET %s with a recordings:write token: %.300s, want the hint for API tokens", path, r.Body)
		}
	}
	if r := app.Do(t, "POST", "/api/v2/messages", phone, `{"message":{"content":"x"}}`); r.Status != 403 {
		t.Errorf("POST /api/v2/messages with a recordings:write token: %d, want 403", r.Status)
	}
	if r := ingest(t, app, app.Alice.Token, callMeta("CAphone3"), "audio/wav", wav(100)); r.Status != 403 {
		t.Errorf("ingest with a member's full token: %d %s, want 403", r.Status, r.Body)
	}
	if _, _, err := store.NewTokenService(app.DB).CreateScopedToken(context.Background(), app.Alice.ID, "x", []string{"messages:delete"}); answerdesk.ErrorCode(err) != answerdesk.EINVALID {
		t.Errorf("an unknown scope: %v", err)
	}
}

// waitFor polls cond for up to 10 s, failing the test with what when it stays false.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: not %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wavStream is a WAV file of n bytes made as it is read (a header, then a pattern), and the
// SHA-256 it will have.
func wavStream(n int64) (io.Reader, [32]byte) {
	mk := func() io.Reader {
		head := wav(0)
		return io.MultiReader(bytes.NewReader(head), io.LimitReader(&patternReader{}, n-int64(len(head))))
	}
	h := sha256.New()
	io.Copy(h, mk())
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return mk(), sum
}

// patternReader gives the bytes 0, 1, ..., 250, 0, 1, ... for ever, however the reads
// are sized.
type patternReader struct{ pos int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte((r.pos + int64(i)) % 251)
	}
	r.pos += int64(len(p))
	return len(p), nil
}

// TestLargeRecordingStreams: a 200 MiB recording goes in and out without the server holding
// it: the heap grows by a few MiB while it is uploaded and downloaded, not by its size.
func TestLargeRecordingStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 400 MiB")
	}
	app := testapp.New(t)
	const size = 200 << 20
	body, sum := wavStream(size)
	mem := startHeapWatch()
	status, got := streamIngest(t, app, "CAlarge", body)
	upPeak := mem.stop()
	if status != 200 || got.Recording == nil {
		t.Fatalf("upload: %d %+v", status, got)
	}

	mem = startHeapWatch()
	resp, err := app.Server.Client().Get(*got.Recording)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	resp.Body.Close()
	downPeak := mem.stop()
	if err != nil || n != size || !bytes.Equal(h.Sum(nil), sum[:]) {
		t.Fatalf("download: %d bytes (%v), want %d with the same SHA-256", n, err, size)
	}
	t.Logf("heap growth at peak: upload %.1f MiB, download %.1f MiB", float64(upPeak)/(1<<20), float64(downPeak)/(1<<20))
	// The database store holds one 1 MiB chunk per upload or reader (and the driver's
	// copy of it); the HTTP buffers add a little.
	if upPeak > 16<<20 || downPeak > 16<<20 {
		t.Errorf("the heap grew by %d bytes uploading and %d downloading %d bytes, want under 16 MiB each", upPeak, downPeak, size)
	}
}

// heapWatch samples HeapInuse and keeps its peak above the starting point. While it
// watches, the collector runs when the heap has grown by 5% (not 100%), so that the peak
// is what is held, not garbage waiting for a collection the pacer has not started.
type heapWatch struct {
	gcPercent int
	start     uint64
	peak      atomic.Uint64
	done      chan struct{}
	wg        sync.WaitGroup
}

func startHeapWatch() *heapWatch {
	w := &heapWatch{gcPercent: debug.SetGCPercent(5), done: make(chan struct{})}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.start = m.HeapInuse
	w.wg.Go(func() {
		for {
			select {
			case <-w.done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > w.start && m.HeapInuse-w.start > w.peak.Load() {
				w.peak.Store(m.HeapInuse - w.start)
			}
		}
	})
	return w
}

func (w *heapWatch) stop() uint64 {
	close(w.done)
	w.wg.Wait()
	debug.SetGCPercent(w.gcPercent)
	return w.peak.Load()
}

// streamIngest uploads body as the audio of call sid, streamed through a pipe (never whole
// in memory), and returns the status and the recording answered.
func streamIngest(t testing.TB, app *testapp.App, sid string, body io.Reader) (int, answerdesk.CallRecording) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="metadata"`)
		h.Set("Content-Type", "application/json")
		w, _ := mw.CreatePart(h)
		json.NewEncoder(w).Encode(callMeta(sid))
		h = textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="audio"; filename="long.wav"`)
		h.Set("Content-Type", "audio/wav")
		w, _ = mw.CreatePart(h)
		io.Copy(w, body)
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequest("POST", app.Server.URL+"/api/v2/call-recordings", pr)
	req.Header.Set("Authorization", "Bearer "+app.Admin.Token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := app.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ Data answerdesk.CallRecording }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("ingest answer: %v", err)
	}
	return resp.StatusCode, got.Data
}
