package audiodir_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk"
	"github.com/answerdesk/answerdesk/audiodir"
	"github.com/answerdesk/answerdesk/internal/audiotest"
)

func TestConformance(t *testing.T) {
	audiotest.Run(t, func(t *testing.T) answerdesk.AudioStore {
		s, err := audiodir.Open(filepath.Join(t.TempDir(), "audio"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestKeysStayInside: no key names a file outside the directory, and files are private.
func TestKeysStayInside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "audio")
	s, err := audiodir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"../x", "a/../../x", "/etc/passwd", "a//b", "", "a\\b", "a/.upload-1"} {
		if _, err := s.Put(context.Background(), key, strings.NewReader("x"), 10); err == nil {
			t.Errorf("Put(%q) stored", key)
		}
	}
	if _, err := s.Put(context.Background(), "recordings/2026/11/k", strings.NewReader("RIFF"), 10); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "recordings/2026/11/k"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
}
