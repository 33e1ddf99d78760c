package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveProc is a running "answerdesk serve" process.
type serveProc struct {
	cmd    *exec.Cmd
	addr   string // host:port it listens on
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
	err    error // the exit, once exited is closed
}

// log is what the process wrote to stderr so far.
func (p *serveProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startServe starts the binary's serve command in dir with env added to the test's
// environment and waits until it listens. It is killed when the test ends.
func startServe(t *testing.T, dir string, env []string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{exited: make(chan struct{})}
	p.cmd = exec.Command(answerdeskBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = io.Discard
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := regexp.MustCompile(`msg=serving .*addr=(\S+)`).FindStringSubmatch(line); m != nil {
				addrCh <- m[1]
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	select {
	case p.addr = <-addrCh:
		return p
	case <-p.exited:
		t.Fatalf("serve exited before listening: %v\n%s", p.err, p.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not listen within 60 s\n%s", p.log())
	}
	return nil
}

// stop sends SIGTERM and waits for exit 0.
func (p *serveProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", p.err, p.log())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit 30 s after SIGTERM")
	}
}

// A database remembers the signing key it was first served with: a process started with
// another refuses to start and says what to do; the same key, from a file or from
// ANSWERDESK_SIGNING_KEY, starts.
func TestServeRefusesAnotherSigningKey(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "answerdesk.db")
	keyA, keyB := filepath.Join(dir, "a.key"), filepath.Join(dir, "b.key")
	valueA := strings.Repeat("a1", 32)
	if err := os.WriteFile(keyA, []byte(valueA), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyB, []byte(strings.Repeat("b2", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, dir, nil, "--db", db, "--signing-key-file", keyA).stop(t)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, answerdeskBinary(t), "serve", "--addr", "127.0.0.1:0", "--db", db, "--signing-key-file", keyB)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Fatalf("serve with another key: exit %d (%v), want 1\n%s", code, err, out)
	}
	for _, want := range []string{"signing key", "first served with", keyB, "--signing-key-file", "ANSWERDESK_SIGNING_KEY"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	startServe(t, dir, []string{"ANSWERDESK_SIGNING_KEY=" + valueA}, "--db", db).stop(t)
}
