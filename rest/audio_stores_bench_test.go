package rest_test

import (
	"path/filepath"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/audiodir"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// benchAudioStores are the stores BenchmarkRecordingAudio runs against: the database, a
// directory, and S3-compatible storage (gofakes3 in the same process: its figures include
// the S3 server's own work and memory).
func benchAudioStores(t testing.TB, _ *testapp.App) []benchStore {
	dir, err := audiodir.Open(filepath.Join(t.TempDir(), "audio"))
	if err != nil {
		t.Fatal(err)
	}
	return []benchStore{{kind: answerdesk.AudioStoreDB}, {kind: answerdesk.AudioStoreFile, store: dir}, {kind: answerdesk.AudioStoreS3, store: newS3Store(t)}}
}
