package rest

import (
	"time"

	"github.com/answerdesk/answerdesk/internal/lru"
)

// DefaultPageCacheBytes is the memory budget of the encoded-response caches when the Server
// does not set PageCacheBytes: about 400 pages of 50 messages.
const DefaultPageCacheBytes = 32 << 20

// pageCache is a least-recently-used cache of encoded response bodies with a byte budget.
// Keys carry everything a body depends on (path, query, the caller's account set, the data
// version), so an entry is never stale: a write changes the version and so the key, and the
// old entry ages out. An entry may also expire (the signed links of recordings).
type pageCache struct{ lru *lru.Cache[*cachedPage] }

// cachedPage is one encoded response.
type cachedPage struct {
	key     string
	body    []byte
	etag    string
	link    string    // the Link header of a list, or ""
	expires time.Time // zero: valid while its key is asked for
}

func (p *cachedPage) cost() int64 {
	return int64(len(p.key) + len(p.body) + len(p.etag) + len(p.link) + 128)
}

func newPageCache(budget int64) *pageCache { return &pageCache{lru.New[*cachedPage](budget)} }

// get returns the entry of key unless it has expired at now.
func (c *pageCache) get(key string, now time.Time) (*cachedPage, bool) {
	if c == nil {
		return nil, false
	}
	p, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	if !p.expires.IsZero() && !now.Before(p.expires) {
		c.lru.Remove(key)
		return nil, false
	}
	return p, true
}

// put stores p, evicting the least recently used entries over the budget. An entry larger
// than the whole budget is not kept.
func (c *pageCache) put(p *cachedPage) {
	if c != nil {
		c.lru.Put(p.key, p, p.cost())
	}
}
