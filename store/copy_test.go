package store

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// copyTables names every table the migrations create on either engine (but the derived
// ones and schema_migrations), and each after the tables its foreign keys point to.
func TestCopyTablesCoverTheSchema(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		db := openTestDB(t, engine, "schema.db")
		q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
		if engine == testdb.Postgres {
			q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
		}
		got := strings.Join(tableNames(t, db, q), " ")
		want := slices.Clone(copyTables)
		for d := range derivedTables {
			want = append(want, d)
		}
		want = append(want, ownTables...)
		if engine == testdb.SQLite {
			want = append(want, ftsTables...)
		} else {
			want = append(want, postgresOwnTables...)
		}
		sort.Strings(want)
		if got != strings.Join(want, " ") {
			t.Errorf("tables %s\nwant    %s", got, strings.Join(want, " "))
		}
		if engine != testdb.SQLite {
			return
		}
		for i, table := range copyTables {
			for _, parent := range tableNames(t, db, `SELECT "table" FROM pragma_foreign_key_list(?)`, table) {
				if j := slices.Index(copyTables, parent); j < 0 || j > i {
					t.Errorf("%s is copied before %s, which it refers to", table, parent)
				}
			}
		}
	})
}

func tableNames(t *testing.T, db *DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.read.Query(q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// tableRows is every row of table as text, sorted in Go: engines order text differently.
func tableRows(t *testing.T, db *DB, table string) []string {
	t.Helper()
	cols, err := db.columns(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	q := `SELECT ` + columnList(cols) + ` FROM ` + table
	if table == "message_counts" {
		// A count is the sum of its shards on PostgreSQL (migration 0025); zeros are left
		// behind by deletes.
		cols = cols[:6]
		q = `SELECT account_id, day, origin, status, read, sum(n) FROM message_counts
			GROUP BY account_id, day, origin, status, read HAVING sum(n) > 0`
	}
	rows, err := db.read.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	vals, ptrs := scanTargets(len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, v := range vals {
			switch x := v.(type) {
			case []byte:
				fmt.Fprintf(&b, "%q|", string(x))
			case string:
				fmt.Fprintf(&b, "%q|", x)
			case nil:
				b.WriteString("NULL|")
			default:
				fmt.Fprintf(&b, "%v|", x)
			}
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// fillEmptyTables gives every table the seed leaves empty one row, made from its SQLite
// schema: parents' ids for foreign keys, text, bytes (0x00 and 0xff among them), times past
// 32 bits and 1 for the other numbers, so that every column's type crosses the engines.
func fillEmptyTables(t *testing.T, db *DB) {
	t.Helper()
	ctx := context.Background()
	for _, table := range copyTables {
		if len(tableRows(t, db, table)) > 0 {
			continue
		}
		fks := map[string][2]string{}
		rows, err := db.read.QueryContext(ctx, `SELECT "from", "table", "to" FROM pragma_foreign_key_list(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var from, parent, to string
			if err := rows.Scan(&from, &parent, &to); err != nil {
				t.Fatal(err)
			}
			fks[from] = [2]string{parent, to}
		}
		rows.Close()
		rows, err = db.read.QueryContext(ctx, `SELECT name, type, pk, (SELECT count(*) FROM pragma_table_info(?) WHERE pk > 0) FROM pragma_table_info(?)`, table, table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		var vals []any
		for rows.Next() {
			var name, typ string
			var pk, pks int
			if err := rows.Scan(&name, &typ, &pk, &pks); err != nil {
				t.Fatal(err)
			}
			switch fk, isFK := fks[name]; {
			case isFK:
				var id any
				if err := db.read.QueryRowContext(ctx, `SELECT min(`+fk[1]+`) FROM `+fk[0]).Scan(&id); err != nil || id == nil {
					t.Fatalf("%s.%s: no %s to refer to (%v)", table, name, fk[0], err)
				}
				cols, vals = append(cols, name), append(vals, id)
			case pk == 1 && pks == 1 && strings.EqualFold(typ, "INTEGER"):
				// the rowid: the engine numbers it
			case strings.EqualFold(typ, "BLOB"):
				cols, vals = append(cols, name), append(vals, []byte{0, 1, 0xfe, 0xff, 'a'})
			case strings.EqualFold(typ, "TEXT"):
				cols, vals = append(cols, name), append(vals, table+"."+name+" ünïcode ' \" ?")
			case strings.HasSuffix(name, "_at") || strings.HasSuffix(name, "_until") || strings.HasSuffix(name, "_date"):
				// unix milliseconds: past 32 bits, so PostgreSQL must hold them in BIGINT
				cols, vals = append(cols, name), append(vals, int64(1_790_000_000_123))
			default:
				cols, vals = append(cols, name), append(vals, int64(1)) // flags, counts, sizes
			}
		}
		rows.Close()
		if _, err := db.write.ExecContext(ctx, `INSERT INTO `+table+` (`+strings.Join(cols, ", ")+`) VALUES (`+placeholders(len(cols))+`)`, vals...); err != nil {
			t.Fatalf("fill %s: %v", table, err)
		}
	}
}
