package audiotest

import (
	"net/http/httptest"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// FakeS3Bucket is the bucket FakeS3 makes.
const FakeS3Bucket = "answerdesk"

// FakeS3 starts an S3 protocol server in the test's process (gofakes3, an independent
// implementation, keeping objects in memory) with the bucket FakeS3Bucket, sets the
// credentials a store reads from the environment, and returns an s3:// store URL of it
// under prefix.
func FakeS3(t testing.TB, prefix string) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(FakeS3Bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test-access-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
	return "s3://" + FakeS3Bucket + "/" + prefix + "?region=us-east-1&path_style=true&endpoint=" + srv.URL
}
