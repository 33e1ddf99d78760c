package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// ErrSigningKeyMismatch is returned by CheckSigningKey when the database was first served
// with another key.
var ErrSigningKeyMismatch = errors.New("the signing key is not the one this database was first served with")

// keyFingerprintName is the service_meta row holding the signing key's fingerprint.
const keyFingerprintName = "signing_key_fingerprint"

// KeyFingerprint identifies a signing key without revealing it: an HMAC of a fixed label
// under the key, so the stored value cannot be turned back into the key or used to sign.
func KeyFingerprint(key []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("answerdesk signing key fingerprint v1"))
	return "hmac-sha256:" + hex.EncodeToString(mac.Sum(nil))
}

// CheckSigningKey records key's fingerprint on the first start and, on every later one,
// returns ErrSigningKeyMismatch if key is another. The key signs links and MCP session ids
// that any replica must accept, and seals stored secrets that any replica must open, so
// every process on one database needs the same one. Concurrent first starts agree: the
// first insert wins and the others compare against it.
func (db *DB) CheckSigningKey(ctx context.Context, key []byte) error {
	fp := KeyFingerprint(key)
	if _, err := db.write.ExecContext(ctx, `INSERT INTO service_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`,
		keyFingerprintName, fp); err != nil {
		return fmt.Errorf("record the signing key fingerprint: %w", err)
	}
	var stored string
	if err := db.write.QueryRowContext(ctx, `SELECT value FROM service_meta WHERE name = ?`, keyFingerprintName).Scan(&stored); err != nil {
		return fmt.Errorf("read the signing key fingerprint: %w", err)
	}
	if !hmac.Equal([]byte(stored), []byte(fp)) {
		return ErrSigningKeyMismatch
	}
	return nil
}

// ForgetSigningKey deletes the recorded key fingerprint, so that the next start records
// its key as the database's: for a key lost for good. It reports whether one was recorded.
// Secrets sealed with the old key stay unreadable and must be entered again.
//
// While any replica runs (its row in replicas has not expired) it forgets nothing and
// returns a *ReplicasRunningError naming them: a replica left running with the old key
// would go on sealing secrets that replicas started with the new one cannot open. The
// check and the delete are one transaction (see Beat).
func (db *DB) ForgetSigningKey(ctx context.Context) (bool, error) {
	var forgot bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		live, err := liveReplicas(ctx, tx, now)
		if err != nil {
			return err
		}
		if len(live) > 0 {
			return &ReplicasRunningError{Replicas: live, Now: now}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM service_meta WHERE name = ?`, keyFingerprintName)
		if err != nil {
			return fmt.Errorf("forget the signing key fingerprint: %w", err)
		}
		n, err := res.RowsAffected()
		forgot = n > 0
		return err
	})
	return forgot, err
}
