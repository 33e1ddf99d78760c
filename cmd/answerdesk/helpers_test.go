package main

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// terminate sends SIGTERM to a running serve and fails the test unless it exits 0 within
// 30 s. exited receives what Wait returns; nil means terminate waits itself. log is what
// the server has logged, for the failure message.
func terminate(t *testing.T, cmd *exec.Cmd, exited <-chan error, log func() string) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if exited == nil {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		exited = done
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, log())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("no exit 30 s after SIGTERM")
	}
}
