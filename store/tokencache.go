package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"

	"github.com/answerdesk/answerdesk"
)

// tokenCache keeps the result of the token lookup (caller and data version) on SQLite, and
// serves it only while nothing at all has been committed to the database since it was read.
//
// The check is SQLite's PRAGMA data_version on one dedicated read-only connection: its value
// changes whenever another connection, in this process or any other on the same file (the
// answerdesk CLI revoking a token, another serve), has committed since the connection last
// asked. The probe connection never writes, so every commit is "another connection's". A
// lookup reads the version first, then runs the query; its result is kept under that
// version, so a commit that lands between the two makes the next probe differ and the
// entry unused. Revocation, a disabled user, a changed membership and every write to
// messages or recordings are commits, so each is seen by the very next request, as
// without the cache; the cache only saves the query while the database is unchanged
// (a busy writer simply makes every lookup a miss). The values of data_version belong to
// one connection: should the probe fail, the connection and every entry are dropped
// together and a new connection starts afresh.
//
// Most of a probe's cost is SQLite starting and ending a read transaction (two fcntl locks
// on the -shm file). A probe that finds the WAL-index header (walheader_unix.go) as it was
// just before the last probe read the version is skipped: SQLite rewrites that header on
// every commit, from any connection or process, and itself trusts its page cache while
// the header is unchanged. The header is read after the request arrived, so a commit
// that ended before it is seen as surely as by a probe.
//
// Concurrent requests share probes: a request that finds a probe running waits for the
// next one to start, never for the one already running (which may have read the version
// before a revocation this request must see), and every request waiting when a probe
// starts takes its result. Under load one probe so answers a batch of requests instead
// of each request queueing for its own. The probe talks to the driver's connection
// directly, without database/sql's pool around it: one connection, one statement, one
// caller at a time by construction.
//
// PostgreSQL has no such counter; there versionprobe.go keeps tokens against a version the
// database bumps on every change that matters to them.
type tokenCache struct {
	drv driver.Driver
	dsn string
	// path is the database file whose WAL-index header is read; "" when it is not a
	// plain file (no header is read then).
	path string

	mu   sync.Mutex // guards everything below; conn and stmt also belong to the running probe
	cond sync.Cond  // on mu: signalled when a probe ends
	// probing is set while a probe runs: that probe alone uses conn and stmt.
	probing bool
	started uint64       // probes started so far; a probe's number is started after it began
	done    uint64       // the number of the last probe to end (probes run one at a time)
	last    probeVersion // what probe done read (valid when lastErr is nil)
	lastErr error
	waiting int // requests waiting on cond (read by the tests)
	// probed, when set (by the tests), runs after each probe's read, outside mu.
	probed func()

	conn driver.Conn // the probe connection, opened on first use; nil after a failure
	stmt driver.Stmt
	// hdr is the file's WAL-index header, mapped while conn is open (nil when it could not
	// be); lastHdr is the header read just before probe done read its version, and
	// lastHdrOK says it was read and probe done succeeded.
	hdr       *walHeader
	lastHdr   walHeaderBytes
	lastHdrOK bool
	skipped   uint64 // probes skipped on an unchanged header (read by the tests)
	gen       uint64 // counts probe connections: a version means something only with its gen
	// entries by token hash; cleared when the probe connection is replaced. Bounded: on
	// reaching maxTokenCacheEntries the map starts over.
	entries map[string]tokenEntry
}

// maxTokenCacheEntries bounds the cache: each entry is a few hundred bytes.
const maxTokenCacheEntries = 10000

// tokenEntry is one verified token's lookup, valid while the probe reads dataVersion.
type tokenEntry struct {
	probe    probeVersion
	caller   answerdesk.Caller
	version  int64 // the caller's accounts' data version (AuthenticateTokenVersion)
	lastUsed int64 // last_used_at in ms as the database has it after this lookup
}

// newTokenCache returns a cache whose probe connection drv opens on dsn, the database at
// path ("" for one that is not a plain file).
func newTokenCache(drv driver.Driver, dsn, path string) *tokenCache {
	tc := &tokenCache{drv: drv, dsn: dsn, path: path, entries: map[string]tokenEntry{}}
	tc.cond.L = &tc.mu
	return tc
}

// probeVersion is a data_version and the probe connection it was read on.
type probeVersion struct {
	gen uint64
	v   int64
}

// dataVersion returns PRAGMA data_version as read by a probe that started after the call.
func (tc *tokenCache) dataVersion() (probeVersion, error) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	// Probes numbered above started (at arrival) begin after this call did: the first of
	// them to end answers it.
	want := tc.started + 1
	if tc.lastHdrOK {
		if h, ok := tc.hdr.read(); ok && h == tc.lastHdr {
			tc.skipped++
			return tc.last, nil
		}
	}
	for tc.done < want {
		if tc.probing {
			tc.waiting++
			tc.cond.Wait()
			tc.waiting--
			continue
		}
		tc.probing = true
		tc.started++
		n, gen := tc.started, tc.gen
		var (
			hdr   walHeaderBytes
			hdrOK bool
		)
		if tc.hdr != nil {
			hdr, hdrOK = tc.hdr.read()
		}
		tc.mu.Unlock()
		v, err := tc.read()
		if tc.probed != nil {
			tc.probed()
		}
		tc.mu.Lock()
		if err != nil {
			tc.reset()
		} else if tc.hdr == nil && tc.path != "" {
			// Opened once the probe connection is open (so the file exists), and kept until
			// the database closes (walheader_unix.go says why); the next probe reads the
			// header it compares with. Without it, every lookup probes.
			tc.hdr, _ = openWALHeader(tc.path)
		}
		tc.probing = false
		tc.done, tc.last, tc.lastErr = n, probeVersion{gen: gen, v: v}, err
		tc.lastHdr, tc.lastHdrOK = hdr, hdrOK && err == nil
		tc.cond.Broadcast()
	}
	return tc.last, tc.lastErr
}

// read runs the probe on the probe connection, opening it first if need be. Only the
// running probe calls it (tc.probing), so it uses conn and stmt without tc.mu.
func (tc *tokenCache) read() (int64, error) {
	if tc.stmt == nil {
		if err := tc.open(); err != nil {
			return 0, err
		}
	}
	// The probe is a local read of microseconds: nothing to cancel.
	rows, err := tc.stmt.(driver.StmtQueryContext).QueryContext(context.Background(), nil)
	if err != nil {
		return 0, fmt.Errorf("read data_version: %w", err)
	}
	var dest [1]driver.Value
	err = rows.Next(dest[:])
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("read data_version: %w", err)
	}
	v, ok := dest[0].(int64)
	if !ok {
		return 0, fmt.Errorf("read data_version: got %T", dest[0])
	}
	return v, nil
}

// open opens the probe connection and prepares its statement.
func (tc *tokenCache) open() error {
	conn, err := tc.drv.Open(tc.dsn)
	if err != nil {
		return fmt.Errorf("open the token cache's probe: %w", err)
	}
	stmt, err := conn.Prepare("PRAGMA data_version")
	if err != nil {
		conn.Close()
		return fmt.Errorf("prepare the token cache's probe: %w", err)
	}
	if _, ok := stmt.(driver.StmtQueryContext); !ok {
		stmt.Close()
		conn.Close()
		return fmt.Errorf("the token cache's probe: the driver's %T has no QueryContext", stmt)
	}
	tc.conn, tc.stmt = conn, stmt
	return nil
}

// reset drops the probe connection and every entry read under its versions. The caller
// holds tc.mu and either runs the probe or knows none runs. The WAL-index header stays
// open: its descriptor may be closed only with the database (close).
func (tc *tokenCache) reset() {
	if tc.stmt != nil {
		tc.stmt.Close()
		tc.conn.Close()
	}
	tc.conn, tc.stmt = nil, nil
	tc.lastHdrOK = false
	tc.gen++
	clear(tc.entries)
}

// get returns the entry of hash if it was read under pv.
func (tc *tokenCache) get(hash []byte, pv probeVersion) (tokenEntry, bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	e, ok := tc.entries[string(hash)]
	return e, ok && e.probe == pv
}

// put keeps e under hash; e.probe must have been read before the lookup began.
func (tc *tokenCache) put(hash []byte, e tokenEntry) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if e.probe.gen != tc.gen {
		return // the probe was replaced since e's version was read: that version means nothing now
	}
	if len(tc.entries) >= maxTokenCacheEntries {
		clear(tc.entries)
	}
	tc.entries[string(hash)] = e
}

// close closes the probe connection and the WAL-index header. The database's other
// connections must be closed first: closing the header's descriptor drops the locks the
// process holds on the -shm file.
func (tc *tokenCache) close() {
	if tc == nil {
		return
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	for tc.probing {
		tc.cond.Wait()
	}
	tc.reset()
	tc.hdr.close()
	tc.hdr = nil
}

// walIndexHeaderSize is the size of one copy of SQLite's WAL-index header (walheader_unix.go);
// the -shm file starts with two.
const walIndexHeaderSize = 48

// walHeaderBytes is one copy of the header.
type walHeaderBytes [walIndexHeaderSize]byte
