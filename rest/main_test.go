package rest_test

import (
	"os"
	"testing"

	"github.com/answerdesk/answerdesk/internal/audiotest"
)

func TestMain(m *testing.M) {
	audiotest.ServeFakeS3IfChild()
	os.Exit(m.Run())
}
