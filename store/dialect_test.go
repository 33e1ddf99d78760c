package store

import "testing"

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
