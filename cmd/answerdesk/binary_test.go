package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binDir    string
	builtBin  string
	buildErr  error
)

// TestMain removes the binary that the process tests share.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// answerdeskBinary builds the command once per test run, for the tests that run it as a
// process (serve, a crash, a first deployment), and returns its path. With -short it skips
// the test instead: building takes most of a short run.
func answerdeskBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "answerdesk-test-bin-"); buildErr != nil {
			return
		}
		builtBin = filepath.Join(binDir, "answerdesk")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}
