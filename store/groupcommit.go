package store

import (
	"context"
	"database/sql"
	"fmt"
)

// groupCommit runs concurrent write transactions on SQLite as one transaction, each in a
// savepoint of its own, so that one commit (one write and one sync of the WAL) serves them
// all. SQLite has one writer connection: concurrent message creates queued for it and each
// paid for its own commit, about a fifth of the server's CPU under a load of creates.
//
// A batcher groups them. A transaction whose fn fails is rolled back to its savepoint and
// gets its error; the others still commit. A failed commit is every member's error. So each
// caller sees what it would alone: its writes are committed when it returns nil, and never
// when it returns an error. Members of a group see the writes of the members before them in
// it, which are committed with theirs or not at all.
type groupCommit = batcher[*groupMember]

// groupMember is one caller's transaction.
type groupMember struct {
	ctx context.Context
	fn  func(context.Context, *sql.Tx) error
	err error
}

// txGrouped is txReadCommitted whose transactions SQLite commits in groups (groupCommit).
// fn must not begin or end savepoints of its own, and must run its statements under the
// context it is given: on SQLite that context is not cancelled once fn has started,
// because SQLite rolls back the whole transaction when a write statement is interrupted,
// which would fail the other members of the group with it. A caller that goes away before
// its turn gets its context's error and writes nothing.
func (db *DB) txGrouped(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	if db.d.postgres {
		return db.txReadCommitted(ctx, func(tx *sql.Tx) error { return fn(ctx, tx) })
	}
	m := &groupMember{ctx: ctx, fn: fn}
	db.group.do(m, db.runGroup)
	return m.err
}

// runGroup runs batch in one transaction and sets each member's err. The transaction is not
// bound to any member's context: one caller going away must not roll back the others.
func (db *DB) runGroup(batch []*groupMember) {
	bg := context.Background()
	fail := func(err error) {
		for _, m := range batch {
			if m.err == nil {
				m.err = err
			}
		}
	}
	tx, err := db.write.BeginTx(bg, nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	if len(batch) == 1 {
		if m := batch[0]; m.run(tx) != nil {
			_ = tx.Rollback()
			return
		}
	} else {
		for _, m := range batch {
			if _, err := tx.ExecContext(bg, `SAVEPOINT member`); err != nil {
				_ = tx.Rollback()
				fail(fmt.Errorf("savepoint: %w", err))
				return
			}
			if m.run(tx) != nil {
				if _, err := tx.ExecContext(bg, `ROLLBACK TO member`); err != nil {
					_ = tx.Rollback()
					fail(fmt.Errorf("roll back to savepoint: %w", err))
					return
				}
			}
			if _, err := tx.ExecContext(bg, `RELEASE member`); err != nil {
				_ = tx.Rollback()
				fail(fmt.Errorf("release savepoint: %w", err))
				return
			}
		}
	}
	if err := tx.Commit(); err != nil {
		fail(fmt.Errorf("commit: %w", err))
	}
}

// run runs the member's fn on tx and keeps its error; a panic is its error too, so that the
// other members and the callers waiting for the lead are not left hanging.
func (m *groupMember) run(tx *sql.Tx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in a grouped transaction: %v", r)
		}
		m.err = err
	}()
	if err := m.ctx.Err(); err != nil {
		return err
	}
	return m.fn(context.WithoutCancel(m.ctx), tx)
}
