//go:build unix

package store

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// walHeader is the WAL-index header of a SQLite database in WAL mode, read from its -shm
// file (https://www.sqlite.org/walformat.html, "The WAL-Index Header"). Every commit by any
// connection, in any process, rewrites it (the commit's frame count, change counter and
// checksum), and SQLite itself decides that its page cache is still valid when a new read
// transaction finds the header byte-for-byte as it last saw it (walIndexReadHdr). The token
// cache uses the same test to skip its probe: a header unchanged since the header read
// before the last probe means no commit since that probe.
//
// The file is mapped read-only and shared, so it shows the writers' updates as they make
// them. The descriptor it is mapped from stays open until the database is closed, after
// every connection: on Linux (and POSIX generally) closing any descriptor of a file drops
// every lock the process holds on that file, SQLite's own shared lock on the -shm file
// among them. Without that lock another process (the answerdesk CLI, a backup) takes the
// WAL index for abandoned, rebuilds it under the running server, and the server's next
// reads fail. The mapping keeps the file from being truncated while it is read only as
// much as SQLite does: SQLite truncates it when the first connection opens the database,
// or deletes it when the last one closes.
type walHeader struct {
	f   *os.File
	mem []byte // nil until the file holds both copies of the header
}

// openWALHeader opens dbPath's -shm file; its header is mapped on the first read that finds
// it initialised.
func openWALHeader(dbPath string) (*walHeader, error) {
	f, err := os.Open(dbPath + "-shm")
	if err != nil {
		return nil, fmt.Errorf("open the WAL index: %w", err)
	}
	return &walHeader{f: f}, nil
}

// mapHeader maps the first bytes of the file once it is long enough to hold them.
func (h *walHeader) mapHeader() bool {
	if fi, err := h.f.Stat(); err != nil || fi.Size() < 2*walIndexHeaderSize {
		return false
	}
	mem, err := syscall.Mmap(int(h.f.Fd()), 0, 2*walIndexHeaderSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return false
	}
	h.mem = mem
	return true
}

// read returns the header when it is initialised and its two copies agree (SQLite writes
// the second copy, then the first: copies that differ are a commit in progress).
func (h *walHeader) read() (hdr walHeaderBytes, ok bool) {
	if h.mem == nil && !h.mapHeader() {
		return hdr, false
	}
	// A mapping whose file shrank would fault: that is a failed read, not a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var second walHeaderBytes
	copy(hdr[:], h.mem[:walIndexHeaderSize])
	copy(second[:], h.mem[walIndexHeaderSize:])
	const isInit = 12 // the offset of the isInit byte
	return hdr, hdr == second && hdr[isInit] == 1
}

// close unmaps and closes the file. Only once no connection to the database is open in
// this process: closing the descriptor drops the process's locks on the file.
func (h *walHeader) close() {
	if h == nil {
		return
	}
	if h.mem != nil {
		_ = syscall.Munmap(h.mem)
	}
	_ = h.f.Close()
}
