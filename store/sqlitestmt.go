package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"

	"modernc.org/sqlite"
)

// maxConnStatements bounds one connection's prepared statements. The writer's statements come
// from a small set of shapes; a message create's column list varies with the fields a client
// sends, and past the bound a statement is simply compiled for each use.
const maxConnStatements = 256

// stmtCacheConnector opens SQLite connections that keep every statement they run prepared,
// by its text. modernc's SQLite compiles the text of each Exec or Query that database/sql
// sends a connection, and a statement on a table with triggers compiles the triggers' bodies
// too: a third of the server's CPU under a load of message creates went to the parser
// (the insert's count, version and search index triggers, the dispatch queries). Writes go
// through transactions, which stmtReader's cached database/sql statements cannot serve,
// so the writer's connection does it itself.
type stmtCacheConnector struct {
	drv *sqlite.Driver
	dsn string
}

func (c stmtCacheConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, errors.New("the SQLite driver's connection lacks a context method")
	}
	return &stmtCacheConn{sqliteConn: sc, stmts: map[string]*connStmt{}}, nil
}

func (c stmtCacheConnector) Driver() driver.Driver { return c.drv }

// sqliteConn is what database/sql uses of modernc's connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// stmtCacheConn is a connection with its statements kept prepared. database/sql uses a
// connection from one goroutine at a time, so the map needs no lock.
type stmtCacheConn struct {
	sqliteConn
	stmts map[string]*connStmt
}

// connStmt is a kept statement; busy while a Rows of it is open, since running it again
// would reset the rows being read (the query is then compiled afresh for that use).
type connStmt struct {
	st   driver.Stmt
	busy bool
}

// stmt returns the kept statement of query, preparing it if need be, or nil when it is busy,
// cannot be kept, or fails to prepare (the connection's own method then reports the error).
func (c *stmtCacheConn) stmt(ctx context.Context, query string) *connStmt {
	cs := c.stmts[query]
	if cs == nil {
		if len(c.stmts) >= maxConnStatements {
			return nil
		}
		st, err := c.PrepareContext(ctx, query)
		if err != nil {
			return nil
		}
		if _, ok := st.(driver.StmtQueryContext); !ok {
			st.Close()
			return nil
		}
		if _, ok := st.(driver.StmtExecContext); !ok {
			st.Close()
			return nil
		}
		cs = &connStmt{st: st}
		c.stmts[query] = cs
	}
	if cs.busy {
		return nil
	}
	return cs
}

func (c *stmtCacheConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs := c.stmt(ctx, query)
	if cs == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return cs.st.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (c *stmtCacheConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs := c.stmt(ctx, query)
	if cs == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.st.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &connRows{Rows: rows, cs: cs}, nil
}

func (c *stmtCacheConn) Close() error {
	for _, cs := range c.stmts {
		cs.st.Close()
	}
	c.stmts = nil
	return c.sqliteConn.Close()
}

// connRows frees its statement for the next use when closed.
type connRows struct {
	driver.Rows
	cs *connStmt
}

func (r *connRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

// The column type methods of modernc's rows, passed through.

func (r *connRows) ColumnTypeDatabaseTypeName(index int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(index)
	}
	return ""
}

func (r *connRows) ColumnTypeNullable(index int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(index)
	}
	return false, false
}

func (r *connRows) ColumnTypeScanType(index int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(index)
	}
	return reflect.TypeFor[any]()
}
