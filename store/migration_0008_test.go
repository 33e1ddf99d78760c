package store

import (
	"context"
	"strings"
	"testing"

	"github.com/answerdesk/answerdesk/internal/testdb"
)

// TestMigrationHidesRecordedAttemptErrors: attempt errors stored before migration 0008 hold
// the service's resolver and resolved addresses; migration 0008 keeps their category only.
func TestMigrationHidesRecordedAttemptErrors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		db := openTestDB(t, engine, "m.db")
		tests := []struct{ name, recorded, want string }{
			{"resolver_address", `Post "https://hooks.example.com/in": dial tcp: lookup hooks.example.com on 10.255.255.53:53: no such host`, "dns: no such host"},
			{"resolver_failure", `Post "https://hooks.example.com/in": dial tcp: lookup hooks.example.com on 10.0.0.2:53: read udp 10.0.0.5:4711->10.0.0.2:53: i/o timeout`, "dns: lookup failed"},
			{"resolved_loopback", `Post "http://localhost:8080/in": dial tcp 127.0.0.1:8080: connect: connection refused`, "connect: refused"},
			{"guard", `Post "http://rebind.example.com/in": dial tcp 127.0.0.1:80: webhook destination refused: prohibited IP address: 127.0.0.1 is not a permitted destination`,
				"blocked: the destination resolves to a private, loopback or reserved address, which deliveries may not reach"},
			{"timeout", `Post "https://slow.example.com/in": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, "timeout after 10s"},
			{"tls", `Post "https://10.1.2.3/in": tls: failed to verify certificate: x509: certificate signed by unknown authority`, "tls: the handshake failed"},
			{"other", `Post "https://hooks.example.com/in": dial tcp 10.9.8.7:443: socket: too many open files`, "network: the request failed"},
			{"not_an_http_error_is_kept", `not sent: store: no secret box configured`, `not sent: store: no secret box configured`},
		}
		if _, err := db.write.ExecContext(ctx, `INSERT INTO accounts (id, number, name, time_zone, created_at) VALUES (1, '1', 'A', 'UTC', 0);
		INSERT INTO on_call_contacts (id, account_id, name, escalation_level, escalate_after_minutes, created_at) VALUES (1, 1, 'C', 1, 15, 0);
		INSERT INTO delivery_methods (id, contact_id, type, url, payload_type, data, header_names, created_at) VALUES (1, 1, 'external_api', 'https://hooks.example.com/in', 'JSON', '[]', '[]', 0);
		INSERT INTO messages (id, uuid, account_id, content, status, origin, created_at, updated_at) VALUES (1, 'u', 1, 'x', 'new', 'API', 0, 0);
		INSERT INTO dispatch_deliveries (id, uuid, message_id, account_id, contact_id, method_id, escalation_level, url, warnings, status, next_attempt_at, created_at, updated_at)
		VALUES (1, 'd', 1, 1, 1, 1, 1, 'https://hooks.example.com/in', '[]', 'failed', 0, 0, 0)`); err != nil {
			t.Fatal(err)
		}
		for i, tc := range tests {
			if _, err := db.write.ExecContext(ctx, `INSERT INTO dispatch_attempts (id, delivery_id, at, duration_ms, error) VALUES (?, 1, 0, 0, ?)`, i+1, tc.recorded); err != nil {
				t.Fatal(err)
			}
		}
		sql, err := db.d.migrationSQL("0008_attempt_error_summaries.sql")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, sql); err != nil {
			t.Fatal(err)
		}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				var got string
				if err := db.write.QueryRowContext(ctx, `SELECT error FROM dispatch_attempts WHERE id = ?`, i+1).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("error %q, want %q", got, tc.want)
				}
				if tc.recorded != tc.want && (strings.Contains(got, "10.") || strings.Contains(got, "127.0.0.1")) {
					t.Errorf("error %q still shows an address", got)
				}
			})
		}
	})
}
