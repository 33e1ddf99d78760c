package store

import (
	"context"
	"path/filepath"
	"testing"
)

// The synchronous mode decides whether an answered write survives a power loss: FULL
// (2) syncs the WAL on every commit and is the default; NORMAL (1) only at checkpoints.
func TestSynchronousMode(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts []Option
		want int
	}{
		{nil, 2},
		{[]Option{WithSynchronous("normal")}, 1},
		{[]Option{WithSynchronous(SynchronousFull)}, 2},
	} {
		db, err := Open(ctx, filepath.Join(t.TempDir(), "a.db"), tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := db.write.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil {
			t.Fatal(err)
		}
		var readers int
		if err := db.read.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&readers); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if got != tc.want || readers != tc.want {
			t.Errorf("%d options: synchronous %d (readers %d), want %d", len(tc.opts), got, readers, tc.want)
		}
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "a.db"), WithSynchronous("off")); err == nil {
		t.Error("synchronous off was accepted")
	}
}
