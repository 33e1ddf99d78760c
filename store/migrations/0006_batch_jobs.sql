-- Asynchronous batches of the public API: kept 24 hours, run by a worker that leases them.
CREATE TABLE batch_jobs (
	id           TEXT PRIMARY KEY,
	sandbox      INTEGER NOT NULL DEFAULT 0,
	status       TEXT NOT NULL, -- pending, done
	requests     TEXT NOT NULL,
	responses    TEXT,
	lease_until  {{.BigInt}},
	created_at   {{.BigInt}} NOT NULL,
	expires_at   {{.BigInt}} NOT NULL
);
CREATE INDEX batch_jobs_pending ON batch_jobs(created_at) WHERE status = 'pending';
CREATE INDEX batch_jobs_expires ON batch_jobs(expires_at);
