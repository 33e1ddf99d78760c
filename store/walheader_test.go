//go:build unix

package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWALHeaderRead: a header is read only when initialised and its two copies agree.
func TestWALHeaderRead(t *testing.T) {
	header := func(change byte, isInit byte) []byte {
		h := make([]byte, walIndexHeaderSize)
		h[8], h[12] = change, isInit // iChange's first byte, isInit
		return h
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	tests := []struct {
		name string
		shm  []byte
		ok   bool
	}{
		{"two equal copies", cat(header(7, 1), header(7, 1), make([]byte, 4096)), true},
		{"a commit in progress", cat(header(7, 1), header(8, 1)), false},
		{"not initialised", cat(header(7, 0), header(7, 0)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "x.db")
			if err := os.WriteFile(db+"-shm", tt.shm, 0o600); err != nil {
				t.Fatal(err)
			}
			h, err := openWALHeader(db)
			if err != nil {
				t.Fatal(err)
			}
			defer h.close()
			got, ok := h.read()
			if ok != tt.ok || (ok && got[8] != 7) {
				t.Errorf("read: %v, ok %v; want ok %v", got, ok, tt.ok)
			}
		})
	}

	// The mapping follows the file: a write to it (a commit's new header) is read at once.
	db := filepath.Join(t.TempDir(), "x.db")
	if err := os.WriteFile(db+"-shm", cat(header(7, 1), header(7, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := openWALHeader(db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.close()
	before, _ := h.read()
	if err := os.WriteFile(db+"-shm", cat(header(9, 1), header(9, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if after, ok := h.read(); !ok || after == before || after[8] != 9 {
		t.Errorf("after a write: %v (ok %v), before %v", after, ok, before)
	}
	if _, err := openWALHeader(filepath.Join(t.TempDir(), "none.db")); err == nil {
		t.Error("mapped the index of a database that has none")
	}
}
