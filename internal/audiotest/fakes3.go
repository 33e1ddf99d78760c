package audiotest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
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

// fakeS3ChildEnv marks a test binary started by FakeS3Process as the S3 server.
const fakeS3ChildEnv = "ANSWERDESK_FAKES3_CHILD"

// ServeFakeS3IfChild serves S3 and never returns when the process is one FakeS3Process
// started; otherwise it returns at once. A package whose tests use FakeS3Process calls it
// first thing in TestMain.
func ServeFakeS3IfChild() {
	if os.Getenv(fakeS3ChildEnv) == "" {
		return
	}
	backend := s3mem.New()
	if err := backend.CreateBucket(FakeS3Bucket); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("http://" + ln.Addr().String())
	// The parent closing stdin (or dying) ends the server.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	err = http.Serve(ln, gofakes3.New(backend).Server())
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// FakeS3Process is FakeS3 with the server in a process of its own (the test binary run
// again, see ServeFakeS3IfChild), so that what the test measures of its own process, such
// as its memory, leaves out the S3 server's.
func FakeS3Process(t testing.TB, prefix string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fakeS3ChildEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("fake S3 process: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "test-access-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
	return "s3://" + FakeS3Bucket + "/" + prefix + "?region=us-east-1&path_style=true&endpoint=" + strings.TrimSpace(line)
}
