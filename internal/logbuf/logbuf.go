// Package logbuf buffers a log's writes so that a busy server makes one write system call
// per batch of lines instead of one per line (the access log writes a line per request).
//
// The trade: lines wait in memory at most the flush interval, so a process killed without
// warning (SIGKILL, OOM killer, power loss) loses at most that interval's lines; a normal
// shutdown (Close) writes them all. Lines the caller flushes itself (serve flushes every
// record at warning level and above, see FlushHandler) never wait. No data other than log
// lines is ever held here.
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Writer is an io.Writer that keeps whole writes in a buffer and writes them to the
// underlying writer when the buffer would pass its size, Interval after the first write
// into an empty buffer, on Flush and on Close. A write is never split, so a log line written
// in one call (as log/slog's handlers do) reaches the output whole. Safe for concurrent use.
type Writer struct {
	mu       sync.Mutex
	out      io.Writer
	buf      []byte
	size     int
	interval time.Duration
	timer    *time.Timer // armed while buf holds lines
	armed    bool
	closed   bool
}

// New returns a Writer over out holding up to size bytes for at most interval.
func New(out io.Writer, size int, interval time.Duration) *Writer {
	w := &Writer{out: out, buf: make([]byte, 0, size), size: size, interval: interval}
	w.timer = time.AfterFunc(time.Hour, func() { _ = w.Flush() })
	w.timer.Stop()
	return w
}

// Write keeps p for the next flush, flushing first if p would not fit. After Close, or
// for a p larger than the whole buffer, p is written through at once.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf)+len(p) > w.size {
		if err := w.flushLocked(); err != nil {
			return 0, err
		}
	}
	if w.closed || len(p) > w.size {
		return w.out.Write(p)
	}
	w.buf = append(w.buf, p...)
	if !w.armed {
		w.armed = true
		w.timer.Reset(w.interval)
	}
	return len(p), nil
}

// Flush writes what the buffer holds.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if w.armed {
		w.timer.Stop()
		w.armed = false
	}
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Close flushes the buffer; later writes go straight through.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return w.flushLocked()
}

// FlushHandler wraps a slog.Handler writing to a Writer so that records at Level or above
// (warnings and errors) are flushed as soon as they are written, together with every line
// before them: what explains a failure is never the part a crash loses.
type FlushHandler struct {
	slog.Handler
	W     *Writer
	Level slog.Level
}

// Handle writes r, then flushes if r is at Level or above.
func (h FlushHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= h.Level {
		if ferr := h.W.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// WithAttrs keeps the flushing in the derived handler.
func (h FlushHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return FlushHandler{Handler: h.Handler.WithAttrs(attrs), W: h.W, Level: h.Level}
}

// WithGroup keeps the flushing in the derived handler.
func (h FlushHandler) WithGroup(name string) slog.Handler {
	return FlushHandler{Handler: h.Handler.WithGroup(name), W: h.W, Level: h.Level}
}
