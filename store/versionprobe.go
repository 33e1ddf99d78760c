package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/answerdesk/answerdesk"
)

// versionProbe keeps verified API tokens on PostgreSQL and tells, for each request, whether
// one is still good and what the data version of its caller's accounts is, in one read
// that every request waiting at the time shares.
//
// A token entry holds the caller and the auth version (migration 0025) read in the same
// statement as the token. Every change to what a token lookup reads bumps the auth
// version in the changing transaction, on whatever replica or CLI made it, so an entry is
// good exactly while the auth version is what it was. A request with a known token asks the
// probe: one query reading the auth version and the data versions of the accounts asked for.
// The probe that answers a request starts after the request arrived, so it sees every
// commit that ended before: a revoked token, a disabled user, a changed membership or a new
// message is seen by the very next request on every replica, as without the cache.
//
// Concurrent requests share probes (a batcher): a request whose token is known queues its
// accounts for the next probe; one probe runs at a time, for every request queued when it
// starts. So under load one round trip answers a batch of requests instead of one (the
// token lookup's joins, per request) each, and a request never takes the answer of a probe
// that started before it arrived.
//
// A failed probe fails only its cache use: its requests make the token lookup themselves.
type versionProbe struct {
	db      *DB
	batcher batcher[*probeWaiter]

	mu      sync.Mutex // guards entries
	entries map[string]probeEntry
}

// probeEntry is one verified token.
type probeEntry struct {
	caller   answerdesk.Caller
	auth     int64 // the auth version read with the token
	lastUsed int64 // last_used_at in ms as the database has it after the lookup
}

// probeWaiter is one request's share of a probe: the accounts it asks for and its answer.
type probeWaiter struct {
	ids     []int64
	all     bool // every account (an admin's data version)
	auth    int64
	version int64
	err     error
}

// probeTimeout bounds one probe: it runs for everyone waiting, under no one request's context.
const probeTimeout = 10 * time.Second

func newVersionProbe(db *DB) *versionProbe {
	return &versionProbe{db: db, entries: map[string]probeEntry{}}
}

// entry returns the entry of hash.
func (p *versionProbe) entry(hash []byte) (probeEntry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[string(hash)]
	return e, ok
}

// put keeps e under hash. Bounded as the SQLite cache is: past maxTokenCacheEntries the map
// starts over.
func (p *versionProbe) put(hash []byte, e probeEntry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.entries) >= maxTokenCacheEntries {
		clear(p.entries)
	}
	p.entries[string(hash)] = e
}

// versions returns the auth version and the data version of c's accounts (every account for
// an admin), as read by a probe that started after the call.
func (p *versionProbe) versions(c *answerdesk.Caller) (auth, version int64, err error) {
	w := &probeWaiter{ids: c.AccountIDs, all: c.Admin}
	p.batcher.do(w, p.run)
	return w.auth, w.version, w.err
}

// run reads the versions of batch's accounts and answers each of its waiters.
func (p *versionProbe) run(batch []*probeWaiter) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	var ids []int64
	all := false
	for _, w := range batch {
		all = all || w.all
		ids = append(ids, w.ids...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	auth, sums, total, err := p.read(ctx, ids, all)
	for _, w := range batch {
		w.auth, w.err = auth, err
		if err != nil {
			continue
		}
		if w.all {
			w.version = total
			continue
		}
		for _, id := range w.ids {
			w.version += sums[id]
		}
	}
}

// read is the probe's query: the auth version, each of ids' data version (the sum of its
// shards) and, when all is set, the sum over every account.
func (p *versionProbe) read(ctx context.Context, ids []int64, all bool) (auth int64, sums map[int64]int64, total int64, err error) {
	sums = make(map[int64]int64, len(ids))
	// One statement, so that every number comes from one snapshot. The first row carries
	// the auth version (account_id -1), the second the total when asked (-2).
	q := `SELECT -1, version FROM auth_version WHERE id = 1`
	if all {
		q += ` UNION ALL SELECT -2, coalesce(sum(version), 0)::bigint FROM data_versions`
	}
	args := []any{}
	if len(ids) > 0 {
		q += ` UNION ALL SELECT account_id, sum(version)::bigint FROM data_versions WHERE account_id = ANY(?::bigint[]) GROUP BY account_id`
		args = append(args, ids)
	}
	rows, err := p.db.rd.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("read versions: %w", err)
	}
	defer rows.Close()
	gotAuth := false
	for rows.Next() {
		var id, v int64
		if err := rows.Scan(&id, &v); err != nil {
			return 0, nil, 0, fmt.Errorf("read versions: %w", err)
		}
		switch id {
		case -1:
			auth, gotAuth = v, true
		case -2:
			total = v
		default:
			sums[id] = v
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, 0, fmt.Errorf("read versions: %w", err)
	}
	if !gotAuth {
		return 0, nil, 0, fmt.Errorf("read versions: no auth version row")
	}
	return auth, sums, total, nil
}
