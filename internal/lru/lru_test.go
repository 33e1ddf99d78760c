package lru

import "testing"

// TestCache: the most recently used entries stay within the budget, a replaced key is
// counted once, an entry over the whole budget is refused, and Remove frees its cost.
func TestCache(t *testing.T) {
	c := New[string](30)
	for _, k := range []string{"a", "b", "c"} {
		c.Put(k, k+"!", 10)
	}
	if v, ok := c.Get("a"); !ok || v != "a!" { // a becomes the most recent
		t.Fatalf("a = %q, %v", v, ok)
	}
	c.Put("d", "d!", 10) // evicts b, the least recently used
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := c.Get(key); ok != want {
			t.Errorf("%s kept = %v, want %v", key, ok, want)
		}
	}
	c.Put("d", "d2", 10) // a replacement costs once
	if c.Len() != 3 || c.Size() != 30 {
		t.Errorf("len %d size %d after replacing d, want 3 and 30", c.Len(), c.Size())
	}
	c.Put("huge", "x", 31)
	if _, ok := c.Get("huge"); ok || c.Len() != 3 {
		t.Error("an entry over the budget was kept")
	}
	c.Remove("a")
	if _, ok := c.Get("a"); ok || c.Size() != 20 {
		t.Errorf("after Remove: a kept %v, size %d", ok, c.Size())
	}
	var none *Cache[int]
	none.Put("k", 1, 1)
	if _, ok := none.Get("k"); ok || none.Len() != 0 {
		t.Error("a nil cache kept something")
	}
}
