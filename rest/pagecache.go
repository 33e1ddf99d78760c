package rest

import (
	"container/list"
	"sync"
	"time"
)

// DefaultPageCacheBytes is the memory budget of the encoded-response caches when the Server
// does not set PageCacheBytes: about 400 pages of 50 messages.
const DefaultPageCacheBytes = 32 << 20

// pageCache is a least-recently-used cache of encoded response bodies with a byte budget.
// Keys carry everything a body depends on (path, query, the caller's account set, the data
// version), so an entry is never stale: a write changes the version and so the key, and the
// old entry ages out.
type pageCache struct {
	mu     sync.Mutex
	budget int64
	size   int64
	order  *list.List // front: most recently used
	items  map[string]*list.Element
}

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

func newPageCache(budget int64) *pageCache {
	return &pageCache{budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

// get returns the entry of key unless it has expired at now.
func (c *pageCache) get(key string, now time.Time) (*cachedPage, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	p := e.Value.(*cachedPage)
	if !p.expires.IsZero() && !now.Before(p.expires) {
		c.remove(e)
		return nil, false
	}
	c.order.MoveToFront(e)
	return p, true
}

// put stores p, evicting the least recently used entries over the budget. An entry larger
// than the whole budget is not kept.
func (c *pageCache) put(p *cachedPage) {
	if c == nil || p.cost() > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[p.key]; ok {
		c.remove(e)
	}
	c.items[p.key] = c.order.PushFront(p)
	c.size += p.cost()
	for c.size > c.budget {
		c.remove(c.order.Back())
	}
}

func (c *pageCache) remove(e *list.Element) {
	p := c.order.Remove(e).(*cachedPage)
	delete(c.items, p.key)
	c.size -= p.cost()
}

// len returns the number of entries.
func (c *pageCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}
