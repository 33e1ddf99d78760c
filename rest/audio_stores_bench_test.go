package rest_test

import (
	"path/filepath"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/audiodir"
	"github.com/answerdesk/answerdesk/internal/audiotest"
	"github.com/answerdesk/answerdesk/internal/testapp"
	"github.com/answerdesk/answerdesk/s3"
)

// benchAudioStores are the stores BenchmarkRecordingAudio runs against: the database, a
// directory, and S3-compatible storage (gofakes3 in a process of its own: the S3 server's
// memory is not in the figures, its work shares the machine's CPUs).
func benchAudioStores(t testing.TB, _ *testapp.App) []benchStore {
	dir, err := audiodir.Open(filepath.Join(t.TempDir(), "audio"))
	if err != nil {
		t.Fatal(err)
	}
	return []benchStore{{kind: answerdesk.AudioStoreDB}, {kind: answerdesk.AudioStoreFile, store: dir}, {kind: answerdesk.AudioStoreS3, store: newS3StoreProcess(t)}}
}

// newS3StoreProcess is an audio store on an S3 server in a process of its own.
func newS3StoreProcess(t testing.TB) *s3.Store {
	t.Helper()
	return openS3Store(t, audiotest.FakeS3Process(t, "audio"))
}
