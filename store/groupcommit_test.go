package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestGroupCommit: concurrent grouped transactions on SQLite share commits, each keeps its
// own outcome (a failed one leaves nothing, the others in its group commit), and a panic is
// its caller's error alone.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "group.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 64
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = db.txGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `INSERT INTO service_meta (name, value) VALUES (?, 'x')`, fmt.Sprint("k", i)); err != nil {
					return err
				}
				switch i % 4 {
				case 1:
					return errors.New("refused")
				case 2:
					if i%8 == 2 {
						panic("boom")
					}
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		var exists bool
		if err := db.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM service_meta WHERE name = ?)`, fmt.Sprint("k", i)).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		wantErr := i%4 == 1 || i%8 == 2
		if (err != nil) != wantErr || exists == wantErr {
			t.Errorf("transaction %d: error %v, row kept %v", i, err, exists)
		}
	}
	t.Logf("%d transactions in %d commits", n, db.group.count())
	if db.group.count() >= n {
		t.Errorf("%d commits for %d concurrent transactions: none grouped", db.group.count(), n)
	}
	// A caller that goes away while its fn runs: fn's context is not cancelled, so its
	// statements (and its group) finish and commit. One gone before its turn writes nothing.
	exists := func(name string) bool {
		var ok bool
		if err := db.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM service_meta WHERE name = ?)`, name).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	midway, cancel := context.WithCancel(ctx)
	err = db.txGrouped(midway, func(ctx context.Context, tx *sql.Tx) error {
		cancel()
		_, err := tx.ExecContext(ctx, `INSERT INTO service_meta (name, value) VALUES ('midway', 'x')`)
		return err
	})
	if err != nil || !exists("midway") {
		t.Errorf("cancelled while running: %v, row kept %v", err, exists("midway"))
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	err = db.txGrouped(gone, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO service_meta (name, value) VALUES ('gone', 'x')`)
		return err
	})
	if !errors.Is(err, context.Canceled) || exists("gone") {
		t.Errorf("cancelled before its turn: %v, row kept %v", err, exists("gone"))
	}
	// The group is idle again: the next transaction leads one of its own.
	if err := db.txGrouped(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO service_meta (name, value) VALUES ('last', 'x')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
