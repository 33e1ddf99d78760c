package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runBinary runs the built command with stdin and returns what it wrote to stdout, failing
// the test (with stdout and stderr) unless it exits 0.
func runBinary(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(answerdeskBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("answerdesk %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

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

// serveProc is a running "answerdesk serve" process.
type serveProc struct {
	cmd            *exec.Cmd
	addr           string // host:port it listens on
	mu             sync.Mutex
	stdout, stderr bytes.Buffer
	exited         chan struct{}
	err            error // the exit, once exited is closed
}

// log is what the process wrote to stderr so far.
func (p *serveProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// output is what the process wrote to stdout so far (all of it once it has exited).
func (p *serveProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// Write keeps what the process writes to stdout.
func (p *serveProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.Write(b)
}

// startServe starts the binary's serve command in dir with env added to the test's
// environment and waits until it listens. It is killed when the test ends.
func startServe(t *testing.T, dir string, env []string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{exited: make(chan struct{})}
	p.cmd = exec.Command(answerdeskBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = p // copied by exec until the process exits; Wait waits for it
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
	select {
	case <-p.exited:
		t.Fatalf("serve exited before SIGTERM: %v\n%s", p.err, p.log())
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("send SIGTERM: %v", err)
	}
	select {
	case <-p.exited:
		if p.err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", p.err, p.log())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit 30 s after SIGTERM")
	}
}
