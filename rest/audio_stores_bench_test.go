package rest_test

import (
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/testapp"
)

// benchAudioStores are the stores BenchmarkRecordingAudio runs against.
func benchAudioStores(testing.TB, *testapp.App) []benchStore {
	return []benchStore{{kind: answerdesk.AudioStoreDB}}
}
