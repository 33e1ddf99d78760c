-- Issue 12 (security limits).
-- An access token may carry fewer scopes than its grant: a refresh that asks for a narrower
-- scope (RFC 6749 §6) gets an access token with only those. NULL: the grant's scopes.
ALTER TABLE oauth_tokens ADD COLUMN scopes TEXT;

-- Asynchronous batch jobs are bounded per client (count and stored bytes): client is the
-- client key (IPv4 address, IPv6 /64) hashed, size the bytes stored for the job.
ALTER TABLE batch_jobs ADD COLUMN client TEXT NOT NULL DEFAULT '';
ALTER TABLE batch_jobs ADD COLUMN size {{.BigInt}} NOT NULL DEFAULT 0;
CREATE INDEX batch_jobs_client ON batch_jobs(client, expires_at);
