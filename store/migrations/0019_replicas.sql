-- The serve processes (replicas) running on this database. Each records itself on start,
-- renews seen_at and expires_at with every heartbeat, and deletes its row when it stops
-- cleanly; a row whose expires_at has passed is a process that stopped without that (a
-- crash, a SIGKILL, a lost connection). db reset-signing-key refuses while any row is
-- unexpired, because a replica that runs with the forgotten key would go on sealing
-- secrets that replicas started with the new key cannot open. key_fingerprint is the
-- fingerprint of the key the replica serves with (KeyFingerprint, never the key). Times
-- are unix milliseconds of the replica's clock.
CREATE TABLE replicas (
  id              TEXT PRIMARY KEY,
  host            TEXT NOT NULL,
  pid             INTEGER NOT NULL,
  started_at      {{.BigInt}} NOT NULL,
  seen_at         {{.BigInt}} NOT NULL,
  expires_at      {{.BigInt}} NOT NULL,
  key_fingerprint TEXT NOT NULL
);
