package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/internal/audiotest"
	"github.com/answerdesk/answerdesk/s3"
)

func open(t *testing.T, prefix string) *s3.Store {
	t.Helper()
	st, err := s3.Open(context.Background(), audiotest.FakeS3(t, prefix))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestConformance(t *testing.T) {
	audiotest.Run(t, func(t *testing.T) answerdesk.AudioStore {
		return open(t, "audio")
	}, audiotest.Options{ServerInProcess: true})
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want s3.Config
		bad  string
	}{
		{url: "s3://rec", want: s3.Config{Bucket: "rec", Secure: true}},
		{url: "s3://rec/calls/2026/", want: s3.Config{Bucket: "rec", Prefix: "calls/2026", Secure: true}},
		{url: "s3://rec/p?region=eu-west-1", want: s3.Config{Bucket: "rec", Prefix: "p", Region: "eu-west-1", Secure: true}},
		{url: "s3://rec?endpoint=http://127.0.0.1:9000&path_style=true", want: s3.Config{Bucket: "rec", Endpoint: "127.0.0.1:9000", PathStyle: true}},
		{url: "s3://rec?endpoint=https://acct.r2.cloudflarestorage.com", want: s3.Config{Bucket: "rec", Endpoint: "acct.r2.cloudflarestorage.com", Secure: true}},
		{url: "s3:///prefix", bad: "want s3://BUCKET"},
		{url: "file:///x", bad: "want s3://BUCKET"},
		{url: "s3://rec?endpoint=ftp://x", bad: "endpoint"},
		{url: "s3://rec?endpoint=http://x/path", bad: "endpoint"},
		{url: "s3://rec?path_style=maybe", bad: "path_style"},
		{url: "s3://rec?regoin=x", bad: "unknown parameter"},
		{url: "s3://AKIAKEY:secret@rec/p", bad: "credentials in the URL are refused"},
		{url: "s3://rec?endpoint=http://AKIAKEY:secret@127.0.0.1:9000&regoin=x", bad: "credentials in the endpoint are refused"},
	} {
		got, err := s3.ParseURL(tc.url)
		switch {
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: %v, want an error about %s", tc.url, err, tc.bad)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%s: the error shows the secret: %v", tc.url, err)
		case tc.bad == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %+v %v, want %+v", tc.url, got, err, tc.want)
		}
	}
}

// TestPresignGet: the presigned link serves the object, with the content type asked for,
// straight from the store.
func TestPresignGet(t *testing.T) {
	st := open(t, "")
	ctx := context.Background()
	body := []byte("RIFF....WAVEfmt presigned")
	if _, err := st.Put(ctx, "recordings/x", bytes.NewReader(body), 1<<20); err != nil {
		t.Fatal(err)
	}
	link, err := st.PresignGet(ctx, "recordings/x", "audio/wav", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(link, "X-Amz-Signature=") || !strings.Contains(link, "X-Amz-Expires=600") {
		t.Fatalf("link %s is not a presigned URL valid 10 minutes", link)
	}
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// gofakes3 serves a presigned GET; it does not check the signature's expiry (a real S3
	// does), so only what it serves is checked here.
	if resp.StatusCode != 200 || !bytes.Equal(got, body) {
		t.Fatalf("presigned GET: %d %q", resp.StatusCode, got)
	}
}

// TestOpenRefusesAMissingBucket: a misspelt bucket stops serve at start, not at the first upload.
func TestOpenRefusesAMissingBucket(t *testing.T) {
	u := strings.Replace(audiotest.FakeS3(t, ""), "s3://"+audiotest.FakeS3Bucket, "s3://no-such-bucket", 1)
	if _, err := s3.Open(context.Background(), u); err == nil || !strings.Contains(err.Error(), "no bucket") {
		t.Fatalf("a missing bucket: %v", err)
	}
}
