package store

import (
	"context"
	"fmt"

	"github.com/answerdesk/answerdesk"
)

// DataVersion returns the data version of the caller's accounts: a number that changes in the
// same transaction as every write to their messages or call recordings (triggers of migration
// 0016 bump a per-account row; the sum over the accounts only grows). Together with the
// caller's account set and the query it keys ETags and cached encoded pages, and since it is
// read from the database on every request, it stays right with several replicas.
//
// The caller needs every one of scopes, so a cached response is never served to a caller
// that could not read it.
func (db *DB) DataVersion(ctx context.Context, c *answerdesk.Caller, scopes ...string) (int64, error) {
	for _, scope := range scopes {
		if err := c.RequireScope(scope); err != nil {
			return 0, err
		}
	}
	vis, args := visibility(c, "account_id")
	var v int64
	if err := db.rd.QueryRowContext(ctx, `SELECT coalesce(sum(version), 0) FROM data_versions WHERE `+vis, args...).Scan(&v); err != nil {
		return 0, fmt.Errorf("read data version: %w", err)
	}
	return v, nil
}
