// Package audiotest is the behaviour every answerdesk.AudioStore must have, as a test suite
// each implementation's tests run against a real instance of it.
package audiotest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/answerdesk/answerdesk"
)

// pattern gives n bytes of a repeating pattern, made as they are read: byte i is i mod 251,
// however the reads are sized.
func pattern(n int64) io.Reader { return io.LimitReader(&patternReader{}, n) }

type patternReader struct{ pos int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte((r.pos + int64(i)) % 251)
	}
	r.pos += int64(len(p))
	return len(p), nil
}

// failingReader gives n bytes, then fails.
type failingReader struct{ left int64 }

var errReader = errors.New("the upload was cut off")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, errReader
	}
	n := int(min(int64(len(p)), f.left))
	for i := range p[:n] {
		p[i] = 7
	}
	f.left -= int64(n)
	return n, nil
}

func read(t *testing.T, s answerdesk.AudioStore, key string, offset, length int64) []byte {
	t.Helper()
	rc, err := s.Open(context.Background(), key, offset, length)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return b
}

func listed(t *testing.T, s answerdesk.AudioStore) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	if err := s.List(context.Background(), func(o answerdesk.AudioObjectInfo) error { out[o.Key] = o.Size; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func gone(t *testing.T, s answerdesk.AudioStore, key string) {
	t.Helper()
	if _, err := s.Open(context.Background(), key, 0, -1); !errors.Is(err, answerdesk.ErrAudioNotFound) {
		t.Errorf("open %s: %v, want ErrAudioNotFound", key, err)
	}
	if _, ok := listed(t, s)[key]; ok {
		t.Errorf("List shows %s", key)
	}
}

// Options tell the suite about the store under test.
type Options struct {
	// ServerInProcess: the store's server runs in the test's process (an S3 protocol server
	// keeping objects in memory), so the heap holds what it stores and the large object's
	// heap growth says nothing about the client: it is logged, not checked.
	ServerInProcess bool
}

// Run runs the suite; newStore returns an empty store.
func Run(t *testing.T, newStore func(t *testing.T) answerdesk.AudioStore, opts ...Options) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	ctx := context.Background()
	data := bytes.Repeat([]byte("RIFF-answerdesk-"), 70_000) // 1.1 MB: several chunks of any store
	sum := sha256.Sum256(data)

	t.Run("put_open_ranges", func(t *testing.T) {
		s := newStore(t)
		obj, err := s.Put(ctx, "recordings/2026/11/a", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if obj.Size != int64(len(data)) || obj.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("put: %+v", obj)
		}
		for _, r := range []struct{ off, n int64 }{{0, -1}, {0, 10}, {5, 100}, {int64(len(data)) - 3, -1}, {300_000, 700_000}, {int64(len(data)) - 5, 100}} {
			want := data[r.off:]
			if r.n >= 0 && r.n < int64(len(want)) {
				want = want[:r.n]
			}
			if got := read(t, s, "recordings/2026/11/a", r.off, r.n); !bytes.Equal(got, want) {
				t.Errorf("range %d+%d: %d bytes, want %d", r.off, r.n, len(got), len(want))
			}
		}
		if got := listed(t, s); got["recordings/2026/11/a"] != int64(len(data)) {
			t.Errorf("List: %v", got)
		}
	})
	t.Run("replace_and_delete", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Put(ctx, "k/1", bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, "k/1", bytes.NewReader([]byte("short")), 100); err != nil {
			t.Fatal(err)
		}
		if got := read(t, s, "k/1", 0, -1); string(got) != "short" {
			t.Errorf("after a replace: %d bytes", len(got))
		}
		if err := s.Delete(ctx, "k/1"); err != nil {
			t.Fatal(err)
		}
		gone(t, s, "k/1")
		if err := s.Delete(ctx, "k/1"); err != nil {
			t.Errorf("delete of a missing key: %v", err)
		}
	})
	t.Run("failed_puts_leave_nothing", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Put(ctx, "big", bytes.NewReader(data), int64(len(data))-1); !errors.Is(err, answerdesk.ErrAudioTooLarge) {
			t.Errorf("over max: %v, want ErrAudioTooLarge", err)
		}
		gone(t, s, "big")
		if _, err := s.Put(ctx, "cut", &failingReader{left: 3 << 20}, 64<<20); err == nil {
			t.Error("a failing reader stored")
		}
		gone(t, s, "cut")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Put(cctx, "cancelled", bytes.NewReader(data), int64(len(data))); err == nil {
			t.Error("a cancelled put stored")
		}
		gone(t, s, "cancelled")
	})
	t.Run("concurrent", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				key := fmt.Sprintf("c/%d", i)
				if _, err := s.Put(ctx, key, bytes.NewReader(data[:100_000+i]), 1<<20); err != nil {
					t.Error(err)
					return
				}
				rc, err := s.Open(ctx, key, 0, -1)
				if err != nil {
					t.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, rc)
				rc.Close()
				if n != int64(100_000+i) {
					t.Errorf("%s: %d bytes", key, n)
				}
			})
		}
		wg.Wait()
		if n := len(listed(t, s)); n != 8 {
			t.Errorf("List shows %d objects, want 8", n)
		}
	})
	t.Run("large_object_streams", func(t *testing.T) {
		if testing.Short() {
			t.Skip("moves 64 MiB")
		}
		s := newStore(t)
		const size = 64 << 20
		growth := heapGrowth(func() {
			if _, err := s.Put(ctx, "large", pattern(size), size); err != nil {
				t.Fatal(err)
			}
		})
		h := sha256.New()
		h2 := sha256.New()
		io.Copy(h2, pattern(size))
		var n int64
		growth = max(growth, heapGrowth(func() {
			rc, err := s.Open(ctx, "large", 0, -1)
			if err != nil {
				t.Fatal(err)
			}
			n, _ = io.Copy(h, rc)
			rc.Close()
		}))
		if n != size || !bytes.Equal(h.Sum(nil), h2.Sum(nil)) {
			t.Fatalf("read back %d bytes, want %d with the same SHA-256", n, size)
		}
		t.Logf("heap growth at peak while 64 MiB went in and out: %.1f MiB", float64(growth)/(1<<20))
		if growth > 24<<20 && !o.ServerInProcess {
			t.Errorf("the heap grew by %d bytes moving %d: the store holds the object", growth, size)
		}
	})
}

// heapGrowth runs f and returns how far HeapInuse rose above where it started, sampled
// while f runs, with the collector working at 5% growth so that garbage does not count.
func heapGrowth(f func()) uint64 {
	old := debug.SetGCPercent(5)
	defer debug.SetGCPercent(old)
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := m.HeapInuse
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > start {
				peak = max(peak, m.HeapInuse-start)
			}
			select {
			case <-done:
				return
			default:
			}
			runtime.Gosched()
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak
}
