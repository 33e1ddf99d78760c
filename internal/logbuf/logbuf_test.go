package logbuf

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while the flush timer writes to it.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

func TestWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		writes []string
		// then is done after the writes; want is the output right after it.
		then       func(w *Writer)
		want       string
		wantWrites int
	}{
		{"held_until_flush", 100, []string{"a\n", "b\n"}, func(w *Writer) {}, "", 0},
		{"flush_writes_all_at_once", 100, []string{"a\n", "b\n"}, func(w *Writer) { w.Flush() }, "a\nb\n", 1},
		{"close_writes_all", 100, []string{"a\n", "b\n"}, func(w *Writer) { w.Close() }, "a\nb\n", 1},
		{"full_buffer_flushes_before_the_line_that_does_not_fit", 5, []string{"abc\n", "def\n"}, func(w *Writer) {}, "abc\n", 1},
		{"line_larger_than_the_buffer_goes_through_whole", 4, []string{"a\n", "0123456789\n"}, func(w *Writer) {}, "a\n0123456789\n", 2},
		{"after_close_writes_go_through", 100, nil, func(w *Writer) { w.Close(); w.Write([]byte("late\n")) }, "late\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out syncBuffer
			w := New(&out, tc.size, time.Hour)
			for _, s := range tc.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			tc.then(w)
			if got := out.String(); got != tc.want || out.Writes() != tc.wantWrites {
				t.Fatalf("output %q in %d writes, want %q in %d", got, out.Writes(), tc.want, tc.wantWrites)
			}
		})
	}
}

// TestWriterInterval: lines reach the output within the interval without any Flush.
func TestWriterInterval(t *testing.T) {
	var out syncBuffer
	w := New(&out, 1<<10, 20*time.Millisecond)
	w.Write([]byte("one\n"))
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "one\n" {
		if time.Now().After(deadline) {
			t.Fatalf("output %q 5 s after the write, want the line", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Write([]byte("two\n")) // the timer is armed again by a write into the emptied buffer
	for out.String() != "one\ntwo\n" {
		if time.Now().After(deadline) {
			t.Fatalf("output %q, want the second line too", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFlushHandler: a warning is written at once with the lines before it; info waits.
func TestFlushHandler(t *testing.T) {
	var out syncBuffer
	w := New(&out, 1<<10, time.Hour)
	log := slog.New(FlushHandler{Handler: slog.NewTextHandler(w, nil), W: w, Level: slog.LevelWarn}).With("k", "v")
	log.Info("request")
	if out.String() != "" {
		t.Fatalf("info written at once: %q", out.String())
	}
	log.Warn("trouble")
	got := out.String()
	if !strings.Contains(got, "msg=request k=v") || !strings.Contains(got, "msg=trouble k=v") || out.Writes() != 1 {
		t.Fatalf("after a warning: %q in %d writes", got, out.Writes())
	}
}
