package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Replica is one serve process running on the database, as it records itself in the
// replicas table (migrations/0019_replicas.sql).
type Replica struct {
	// ID is random, made at registration: a host and pid may be reused.
	ID   string
	Host string
	PID  int
	// StartedAt is when it registered, SeenAt its last heartbeat.
	StartedAt, SeenAt time.Time
	// ExpiresAt is when it counts as stopped unless a heartbeat renews it: StaleBeats
	// heartbeat intervals after SeenAt.
	ExpiresAt time.Time
	// KeyFingerprint is KeyFingerprint of the signing key it serves with.
	KeyFingerprint string

	interval time.Duration
}

// StaleBeats is how many heartbeat intervals a replica may miss before it counts as
// stopped: a late beat or two (a busy database, a long pause) must not let db
// reset-signing-key through while the replica runs.
const StaleBeats = 3

// ErrSigningKeyChanged is returned by Beat (and RegisterReplica) when the database no
// longer records the key the replica serves with.
var ErrSigningKeyChanged = errors.New("the database no longer records the signing key this replica serves with")

// RegisterReplica records this process as a replica that serves with key and beats every
// interval, after the same check as Beat's. Rows of replicas that stopped without removing
// themselves are kept a day, for whoever reads the table, and then deleted here.
func (db *DB) RegisterReplica(ctx context.Context, key []byte, interval time.Duration) (*Replica, error) {
	if interval <= 0 {
		return nil, fmt.Errorf("replica heartbeat interval %v: want a positive duration", interval)
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	now := db.now()
	r := &Replica{ID: hex.EncodeToString(id), Host: host, PID: os.Getpid(), StartedAt: now.Truncate(time.Millisecond),
		KeyFingerprint: KeyFingerprint(key), interval: interval}
	if _, err := db.write.ExecContext(ctx, `DELETE FROM replicas WHERE expires_at < ?`, now.Add(-24*time.Hour).UnixMilli()); err != nil {
		return nil, fmt.Errorf("delete the rows of long-stopped replicas: %w", err)
	}
	if err := db.Beat(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// Beat renews the replica's row, in one transaction with a check that the database still
// records its signing key. When the fingerprint was forgotten (db reset-signing-key) or
// replaced (a replica with another key started after that), it returns an error that is
// ErrSigningKeyChanged and renews nothing. ForgetSigningKey reads the rows in a
// transaction too, so a beat and a reset never both go through on what the other changed:
// SQLite has one writer, and on PostgreSQL SERIALIZABLE fails one of the two, which runs
// again and sees the other.
func (db *DB) Beat(ctx context.Context, r *Replica) error {
	now := db.now().Truncate(time.Millisecond)
	expires := now.Add(StaleBeats * r.interval)
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var stored string
		err := tx.QueryRowContext(ctx, `SELECT value FROM service_meta WHERE name = ?`, keyFingerprintName).Scan(&stored)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("%w: none is recorded (answerdesk db reset-signing-key forgot it)", ErrSigningKeyChanged)
		case err != nil:
			return fmt.Errorf("read the signing key fingerprint: %w", err)
		case !hmac.Equal([]byte(stored), []byte(r.KeyFingerprint)):
			return fmt.Errorf("%w: another key's fingerprint is recorded (a process with another key started after answerdesk db reset-signing-key)", ErrSigningKeyChanged)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO replicas (id, host, pid, started_at, seen_at, expires_at, key_fingerprint)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, expires_at = excluded.expires_at`,
			r.ID, r.Host, r.PID, r.StartedAt.UnixMilli(), now.UnixMilli(), expires.UnixMilli(), r.KeyFingerprint); err != nil {
			return fmt.Errorf("record replica %s: %w", r.ID, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.SeenAt, r.ExpiresAt = now, expires
	return nil
}

// RemoveReplica deletes the replica's row: it stops cleanly, and no longer holds up db
// reset-signing-key.
func (db *DB) RemoveReplica(ctx context.Context, r *Replica) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM replicas WHERE id = ?`, r.ID); err != nil {
		return fmt.Errorf("remove replica %s: %w", r.ID, err)
	}
	return nil
}

// LiveReplicas lists the replicas whose rows have not expired, oldest first.
func (db *DB) LiveReplicas(ctx context.Context) ([]Replica, error) {
	return liveReplicas(ctx, db.read, db.now())
}

func liveReplicas(ctx context.Context, q querier, now time.Time) ([]Replica, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, host, pid, started_at, seen_at, expires_at, key_fingerprint
		FROM replicas WHERE expires_at > ? ORDER BY started_at, id`, now.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("list replicas: %w", err)
	}
	defer rows.Close()
	var live []Replica
	for rows.Next() {
		var r Replica
		var started, seen, expires int64
		if err := rows.Scan(&r.ID, &r.Host, &r.PID, &started, &seen, &expires, &r.KeyFingerprint); err != nil {
			return nil, fmt.Errorf("list replicas: %w", err)
		}
		r.StartedAt, r.SeenAt, r.ExpiresAt = time.UnixMilli(started).UTC(), time.UnixMilli(seen).UTC(), time.UnixMilli(expires).UTC()
		live = append(live, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list replicas: %w", err)
	}
	return live, nil
}

// ReplicasRunningError is ForgetSigningKey's refusal while replicas run.
type ReplicasRunningError struct {
	// Replicas are those whose rows had not expired at Now.
	Replicas []Replica
	Now      time.Time
}

func (e *ReplicasRunningError) Error() string {
	var b strings.Builder
	if len(e.Replicas) == 1 {
		b.WriteString("a serve process runs on this database: ")
	} else {
		fmt.Fprintf(&b, "%d serve processes run on this database: ", len(e.Replicas))
	}
	for i, r := range e.Replicas {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s pid %d (started %s, last heartbeat %v ago)", r.Host, r.PID,
			r.StartedAt.UTC().Format(time.RFC3339), e.Now.Sub(r.SeenAt).Round(100*time.Millisecond))
	}
	fmt.Fprintf(&b, "; stop every serve on the database first (a clean stop, SIGTERM, takes a process off this list at once; one that died"+
		" without it stays on it until %d heartbeat intervals after its last), then run this again: a replica left running with"+
		" the old key would go on sealing secrets that replicas started with the new key cannot open", StaleBeats)
	return b.String()
}
