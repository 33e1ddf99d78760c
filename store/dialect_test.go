package store

import (
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", `SELECT 1`, `SELECT 1`},
		{"in_order", `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`, `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`},
		{"numbered", `UPDATE u SET d = coalesce(d, ?1) WHERE id = ?2 AND ?1 > 0`, `UPDATE u SET d = coalesce(d, $1) WHERE id = $2 AND $1 > 0`},
		{"string_literal", `SELECT 'why?', x FROM t WHERE y = ? AND z = 'it''s ?'`, `SELECT 'why?', x FROM t WHERE y = $1 AND z = 'it''s ?'`},
		{"quoted_identifier", `SELECT "a?" FROM t WHERE b = ?`, `SELECT "a?" FROM t WHERE b = $1`},
		{"comment", "SELECT a -- who? what?\nFROM t WHERE b = ?", "SELECT a -- who? what?\nFROM t WHERE b = $1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := rebind(tc.in); got != tc.want {
				t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestDisplayName: a database URL is shown without its password, wherever pgx would read it.
func TestDisplayName(t *testing.T) {
	for _, dsn := range []string{
		"postgres://app:s3cret@db.example:5432/answerdesk?sslmode=require",
		"postgres://app@db.example/answerdesk?password=s3cret&sslmode=require",
		"postgresql://app@db.example/answerdesk?sslpassword=s3cret",
	} {
		if got := DisplayName(dsn); strings.Contains(got, "s3cret") || !strings.Contains(got, "db.example") {
			t.Errorf("DisplayName(%q) = %q", dsn, got)
		}
	}
	if got := DisplayName("./data/answerdesk.db"); got != "./data/answerdesk.db" {
		t.Errorf("a SQLite path shown as %q", got)
	}
}
