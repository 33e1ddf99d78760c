-- Issue 17 (replicas): state that every serve process on one database shares.

-- Fixed-window rate-limit counters (the public API limit, the sign-in and registration
-- throttles, webhook replays): one row per (scope, subject), its window replaced when a new
-- one starts. allowed is the answer to the last request, which RETURNING reads back.
CREATE TABLE rate_limits (
  scope        TEXT NOT NULL,
  subject      TEXT NOT NULL,
  window_start {{.BigInt}} NOT NULL, -- unix ms
  expires_at   {{.BigInt}} NOT NULL, -- unix ms: window_start plus the window
  used         INTEGER NOT NULL,
  allowed      INTEGER NOT NULL,
  PRIMARY KEY (scope, subject)
){{.WithoutRowID}};
CREATE INDEX rate_limits_expiry ON rate_limits(expires_at);

-- Facts about the database itself, e.g. the fingerprint of the signing key it was first
-- served with.
CREATE TABLE service_meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
