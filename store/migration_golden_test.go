package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestMigrationsRunTheSQLTheyAlwaysRan: a migration, once released, must run the same SQL on
// each engine for ever after: a database migrated by an older answerdesk has it applied, and
// one created now must end up with the same schema (on SQLite even the CREATE statements'
// text, comments included, is kept in sqlite_schema). testdata/migrations.sha256 holds the
// SHA-256 of the SQL each engine ran for each migration, taken from the per-engine files
// before the migrations became one file each; every migration must render to it, under the
// name recorded in schema_migrations. A new migration adds its line (the failure prints it).
func TestMigrationsRunTheSQLTheyAlwaysRan(t *testing.T) {
	want := readMigrationHashes(t, "testdata/migrations.sha256")
	forEachMigrationEngine(t, func(t *testing.T, engine string, _ dialect, ms []migration) {
		seen := map[string]bool{}
		for _, m := range ms {
			key := engine + "/" + m.name
			seen[key] = true
			sum := sha256.Sum256([]byte(m.sql))
			got := hex.EncodeToString(sum[:])
			switch w, ok := want[key]; {
			case !ok:
				t.Errorf("%s is not in testdata/migrations.sha256; once it is final, add the line:\n%s  %s", key, got, key)
			case got != w:
				t.Errorf("%s renders to SQL with SHA-256 %s, want %s: a released migration must not change", key, got, w)
			}
		}
		for key := range want {
			if strings.HasPrefix(key, engine+"/") && !seen[key] {
				t.Errorf("%s is in testdata/migrations.sha256 but no longer a migration", key)
			}
		}
	})
}

// forEachMigrationEngine runs fn in a subtest per engine with the engine's dialect and its
// migrations as it runs them.
func forEachMigrationEngine(t *testing.T, fn func(t *testing.T, engine string, d dialect, ms []migration)) {
	for _, e := range []struct {
		name string
		d    dialect
	}{
		{"sqlite", sqliteDialect},
		{"postgres", postgresDialect},
	} {
		t.Run(e.name, func(t *testing.T) {
			ms, err := e.d.migrationList()
			if err != nil {
				t.Fatal(err)
			}
			fn(t, e.name, e.d, ms)
		})
	}
}

// readMigrationHashes reads a file in sha256sum's format ("<hex>  <engine>/<name>" a line)
// into a map from engine/name to hex.
func readMigrationHashes(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hashes := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, key, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		hashes[key] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(hashes) == 0 {
		t.Fatalf("%s holds no hashes", path)
	}
	return hashes
}
