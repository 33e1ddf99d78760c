package rest

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPageCacheBudget: the cache keeps the most recently used entries within its byte
// budget, refuses an entry over the whole budget, and drops an expired entry.
func TestPageCacheBudget(t *testing.T) {
	now := time.Unix(1000, 0)
	page := func(i int) *cachedPage {
		return &cachedPage{key: "k" + strconv.Itoa(i), body: []byte(strings.Repeat("x", 1000))}
	}
	per := page(0).cost()
	c := newPageCache(3 * per)
	for i := range 3 {
		c.put(page(i))
	}
	if _, ok := c.get("k0", now); !ok { // k0 becomes the most recent
		t.Fatal("k0 missing")
	}
	c.put(page(3)) // evicts k1, the least recently used
	for key, want := range map[string]bool{"k0": true, "k1": false, "k2": true, "k3": true} {
		if _, ok := c.get(key, now); ok != want {
			t.Errorf("%s cached = %v, want %v", key, ok, want)
		}
	}
	if c.lru.Size() > c.lru.Budget() || c.lru.Len() != 3 {
		t.Errorf("size %d of budget %d, %d entries", c.lru.Size(), c.lru.Budget(), c.lru.Len())
	}
	c.put(&cachedPage{key: "huge", body: make([]byte, 4*per)})
	if _, ok := c.get("huge", now); ok || c.lru.Len() != 3 {
		t.Error("an entry over the budget was kept")
	}
	c.put(&cachedPage{key: "short", body: []byte("x"), expires: now.Add(time.Second)})
	if _, ok := c.get("short", now); !ok {
		t.Fatal("short missing before it expires")
	}
	if _, ok := c.get("short", now.Add(time.Second)); ok {
		t.Error("an expired entry was served")
	}
}
