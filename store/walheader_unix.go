//go:build unix

package store

import (
	"errors"
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
// them; it stays mapped while the probe connection is open, which keeps SQLite from
// deleting or truncating it (it does so only when the last connection to the database
// closes, or the first one opens).
type walHeader struct {
	mem []byte
}

// openWALHeader maps the first bytes of dbPath's -shm file.
func openWALHeader(dbPath string) (*walHeader, error) {
	f, err := os.Open(dbPath + "-shm")
	if err != nil {
		return nil, fmt.Errorf("open the WAL index: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("stat the WAL index: %w", err)
	} else if fi.Size() < 2*walIndexHeaderSize {
		return nil, errors.New("the WAL index is not initialised")
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, 2*walIndexHeaderSize, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the WAL index: %w", err)
	}
	return &walHeader{mem: mem}, nil
}

// read returns the header when it is initialised and its two copies agree (SQLite writes
// the second copy, then the first: copies that differ are a commit in progress).
func (h *walHeader) read() (hdr walHeaderBytes, ok bool) {
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

// close unmaps the file.
func (h *walHeader) close() {
	if h != nil {
		_ = syscall.Munmap(h.mem)
	}
}
