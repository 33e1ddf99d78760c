package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAudioMoveCommand: answerdesk audio move moves the demo's recording audio from the
// database to a directory, says what it moved, and a second run moves nothing;
// a store spec it cannot read is refused, naming the flag.
func TestAudioMoveCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	runBinary(t, "", "seed", "--db", db)
	audio := filepath.Join(dir, "audio")
	out := runBinary(t, "", "audio", "move", "--db", db, "--to", "file://"+audio)
	m := regexp.MustCompile(`(\d+) recordings' audio \((\d+) bytes\) moved from db to file`).FindStringSubmatch(out)
	if m == nil || m[1] == "0" {
		t.Fatalf("audio move said:\n%.500s", out)
	}
	var files int
	filepath.Walk(audio, func(_ string, fi os.FileInfo, _ error) error {
		if fi != nil && !fi.IsDir() {
			files++
		}
		return nil
	})
	if want := m[1]; want != strconv.Itoa(files) {
		t.Fatalf("%d files in the directory, the command moved %s", files, want)
	}
	if again := runBinary(t, "", "audio", "move", "--db", db, "--to", "file://"+audio); !strings.HasPrefix(again, "0 recordings' audio") {
		t.Fatalf("a second run: %s", again)
	}
	if out, err := runCmd(t, "", "audio", "move", "--db", db, "--to", "ftp://x"); err == nil || !strings.Contains(err.Error(), "--to") {
		t.Fatalf("a bad store: %v %s", err, out)
	}
}
