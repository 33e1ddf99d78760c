package store

import (
	"fmt"
	"strings"
	"testing"
)

// TestMigrationListTakesCommonFiles: each engine runs its own files and, for a number it
// has none of, the one in migrations/common, under the file's name: the name recorded in
// schema_migrations before the shared files moved there, so a migrated database sees no
// change.
func TestMigrationListTakesCommonFiles(t *testing.T) {
	want := map[int]string{8: "0008_attempt_error_summaries.sql", 10: "0010_todo_lifecycle.sql"}
	for _, d := range []dialect{sqliteDialect, postgresDialect} {
		t.Run(d.migrations, func(t *testing.T) {
			ms, err := d.migrationList()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			for i, m := range ms {
				if i > 0 && ms[i-1].version >= m.version {
					t.Errorf("%s after %s: not in ascending order", m.name, ms[i-1].name)
				}
				if !strings.HasPrefix(m.name, fmt.Sprintf("%04d_", m.version)) {
					t.Errorf("migration %d is named %s", m.version, m.name)
				}
				if m.sql == "" {
					t.Errorf("%s: no SQL", m.name)
				}
				seen[m.version] = true
				if name, ok := want[m.version]; ok && m.name != name {
					t.Errorf("migration %d: name %s, want %s", m.version, m.name, name)
				}
			}
			for v := range want {
				if !seen[v] {
					t.Errorf("migration %d (in migrations/common) is missing", v)
				}
			}
			if !seen[1] || !seen[16] {
				t.Errorf("the engine's own migrations are missing: %v", seen)
			}
			sql, err := d.migrationSQL("0001_core.sql")
			if err != nil {
				t.Fatal(err)
			}
			if own, _ := migrationFS.ReadFile(d.migrations + "/0001_core.sql"); sql != string(own) {
				t.Error("migrationSQL does not return the engine's own file")
			}
		})
	}
}
