// Package lru is a least-recently-used cache with a budget in bytes, safe for concurrent
// use. The customer API's page cache, the public API's body cache and the public MCP
// server's result cache keep encoded responses in it; each says what an entry costs.
package lru

import (
	"container/list"
	"sync"
)

// Cache maps string keys to values of type V, dropping the least recently used entries
// when the costs of those kept pass the budget. A nil *Cache keeps nothing.
type Cache[V any] struct {
	mu     sync.Mutex
	budget int64
	size   int64
	order  *list.List // front: most recently used
	items  map[string]*list.Element
}

type entry[V any] struct {
	key  string
	val  V
	cost int64
}

// New returns a cache whose entries cost at most budget bytes in all.
func New[V any](budget int64) *Cache[V] {
	return &Cache[V]{budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns key's value and makes it the most recently used.
func (c *Cache[V]) Get(key string) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*entry[V]).val, true
}

// Put keeps val under key at the given cost, replacing what key held, and drops the least
// recently used entries over the budget. A value that costs more than the whole budget is
// not kept (it would evict everything and then itself).
func (c *Cache[V]) Put(key string, val V, cost int64) {
	if c == nil || cost > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
	c.items[key] = c.order.PushFront(&entry[V]{key: key, val: val, cost: cost})
	c.size += cost
	for c.size > c.budget {
		c.remove(c.order.Back())
	}
}

// Remove drops key's entry, if any.
func (c *Cache[V]) Remove(key string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
}

func (c *Cache[V]) remove(e *list.Element) {
	en := c.order.Remove(e).(*entry[V])
	delete(c.items, en.key)
	c.size -= en.cost
}

// Len is the number of entries kept.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Size is what the entries kept cost in all; never more than Budget.
func (c *Cache[V]) Size() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// Budget is the most the entries may cost in all.
func (c *Cache[V]) Budget() int64 {
	if c == nil {
		return 0
	}
	return c.budget
}
