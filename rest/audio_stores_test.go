package rest_test

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/audiodir"
	"github.com/answerdesk/answerdesk/internal/audiotest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/s3"
)

// newS3Store opens a store on an S3 protocol server in the test's process.
func newS3Store(t testing.TB) *s3.Store {
	t.Helper()
	return openS3Store(t, audiotest.FakeS3(t, "audio"))
}

// openS3Store opens the S3 audio store at url.
func openS3Store(t testing.TB, url string) *s3.Store {
	t.Helper()
	st, err := s3.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRecordingsInEachAudioStore: with the audio in a directory or in S3-compatible storage,
// a recording goes in and comes out (with Range) as with the database; audio stored before
// the store changed still plays from where it is, and audio move moves it, verified; with
// AudioRedirect an S3 store answers the link with its own presigned one.
func TestRecordingsInEachAudioStore(t *testing.T) {
	dir, err := audiodir.Open(filepath.Join(t.TempDir(), "audio"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []struct {
		kind  string
		store answerdesk.AudioStore
	}{{answerdesk.AudioStoreFile, dir}, {answerdesk.AudioStoreS3, newS3Store(t)}} {
		t.Run(st.kind, func(t *testing.T) {
			app := testapp.New(t)
			before, _ := app.CreateCall(t, app.Alice, app.Acme, testapp.Start, "Main", true) // in the database
			app.Recordings.Audio, app.Recordings.AudioKind = st.store, st.kind
			audio := wav(30_000)
			r := ingest(t, app, app.Admin.Token, callMeta("CAstore-"+st.kind), "audio/wav", audio)
			var got struct{ Data answerdesk.CallRecording }
			r.JSON(t, &got)
			if r.Status != 200 || got.Data.Recording == nil {
				t.Fatalf("ingest: %d %s", r.Status, r.Body)
			}
			link := strings.TrimPrefix(*got.Data.Recording, app.Server.URL)
			if a := app.Do(t, "GET", link, "", nil); a.Status != 200 || !bytes.Equal(a.Body, audio) {
				t.Fatalf("download: %d, %d bytes", a.Status, len(a.Body))
			}
			if a := app.DoWith(t, "GET", link, "", nil, http.Header{"Range": {"bytes=1000-1999"}}); a.Status != 206 || !bytes.Equal(a.Body, audio[1000:2000]) {
				t.Fatalf("range: %d, %d bytes", a.Status, len(a.Body))
			}
			if r := ingest(t, app, app.Admin.Token, callMeta("CAempty-"+st.kind), "audio/wav", []byte{}); r.Status != 422 {
				t.Fatalf("empty audio: %d %s, want 422", r.Status, r.Body)
			}
			if countAudio(t, app) != 1 { // the fixture call's, in the database; the new one is not
				t.Fatalf("%d objects in the database store, want 1", countAudio(t, app))
			}
			old := strings.TrimPrefix(app.Signer.URL(before.ID), app.Server.URL)
			if a := app.Do(t, "GET", old, "", nil); a.Status != 200 {
				t.Fatalf("audio stored before the change: %d", a.Status)
			}

			n, err := app.Recordings.MoveAudio(context.Background(), app.Recordings.AudioStore(answerdesk.AudioStoreDB), answerdesk.AudioStoreDB,
				st.store, st.kind, nil)
			if err != nil || n != 1 || countAudio(t, app) != 0 {
				t.Fatalf("move: %d moved (%v), %d left in the database", n, err, countAudio(t, app))
			}
			if a := app.Do(t, "GET", old, "", nil); a.Status != 200 || !bytes.HasPrefix(a.Body, []byte("RIFF")) {
				t.Fatalf("moved audio: %d", a.Status)
			}
			if n, err := app.Recordings.MoveAudio(context.Background(), app.Recordings.AudioStore(answerdesk.AudioStoreDB), answerdesk.AudioStoreDB,
				st.store, st.kind, nil); err != nil || n != 0 {
				t.Fatalf("a second move: %d (%v), want nothing left to move", n, err)
			}

			if st.kind != answerdesk.AudioStoreS3 {
				return
			}
			app.Rest.AudioRedirect = true
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Get(app.Server.URL + link)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if resp.StatusCode != 302 || !strings.Contains(loc, "X-Amz-Signature=") {
				t.Fatalf("redirect: %d %s", resp.StatusCode, loc)
			}
			resp, err = http.Get(loc)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !bytes.Equal(b.Bytes(), audio) {
				t.Fatalf("the presigned link: %d, %d bytes", resp.StatusCode, b.Len())
			}
		})
	}
}
