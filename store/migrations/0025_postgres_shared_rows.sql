{{- if .Postgres -}}
-- PostgreSQL, for many writers and many replicas on one database.
--
-- Shards. Every message written bumps its account's data version row and the counter row of
-- its account, day, origin, status and read flag. Both rows stay locked until the writing
-- transaction commits, so every create in a busy account queued on them, whichever
-- replica it reached. Each row is now one of eight shards, chosen by the writing backend
-- (pg_backend_pid() % 8): concurrent transactions on different connections update
-- different rows. Readers already add rows up (a version is the sum over an account's rows,
-- a count the sum of n), so they read the same numbers. A shard's version is still the
-- write's time in unix milliseconds, or one more than its last, so the sum only grows.
-- A decrement goes to the writer's shard too, where n may fall below zero; the sum is the
-- count.
ALTER TABLE data_versions ADD COLUMN shard SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE data_versions DROP CONSTRAINT data_versions_pkey;
ALTER TABLE data_versions ADD PRIMARY KEY (account_id, shard);

CREATE OR REPLACE FUNCTION bump_data_version(acct BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO data_versions (account_id, shard, version) VALUES (acct, pg_backend_pid() % 8, {{.NowMs}})
	ON CONFLICT (account_id, shard) DO UPDATE SET version = greatest(data_versions.version + 1, excluded.version);
END;
$$;

ALTER TABLE message_counts ADD COLUMN shard SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE message_counts DROP CONSTRAINT message_counts_pkey;
ALTER TABLE message_counts ADD PRIMARY KEY (account_id, day, origin, status, read, shard);

CREATE OR REPLACE FUNCTION messages_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('DELETE', 'UPDATE') THEN
		INSERT INTO message_counts AS c (account_id, day, origin, status, read, shard, n)
		VALUES (OLD.account_id, OLD.created_at / 86400000, OLD.origin, OLD.status, OLD.read, pg_backend_pid() % 8, -1)
		ON CONFLICT (account_id, day, origin, status, read, shard) DO UPDATE SET n = c.n - 1;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO message_counts AS c (account_id, day, origin, status, read, shard, n)
		VALUES (NEW.account_id, NEW.created_at / 86400000, NEW.origin, NEW.status, NEW.read, pg_backend_pid() % 8, 1)
		ON CONFLICT (account_id, day, origin, status, read, shard) DO UPDATE SET n = c.n + 1;
	END IF;
	RETURN NULL;
END;
$$;

-- The auth version: one row, bumped in the same transaction as every change to what a
-- token lookup reads (a token revoked, renamed to another user or narrowed; a user
-- disabled, deleted, made admin or given another email; a membership added or removed).
-- Each replica keeps verified tokens in memory and serves one only while this number is
-- what it was when the token was read: a single-row read, shared by every request
-- waiting at the time, instead of the token lookup (store/versionprobe.go). Statement-level
-- triggers: a statement changing many rows bumps it once. A token's last use is not part of
-- it, so recording that bumps nothing.
CREATE TABLE auth_version (
	id       INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
	version  BIGINT NOT NULL
);
INSERT INTO auth_version (id, version) VALUES (1, {{.NowMs}});

CREATE FUNCTION bump_auth_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE auth_version SET version = greatest(version + 1, {{.NowMs}}) WHERE id = 1;
	RETURN NULL;
END;
$$;

CREATE TRIGGER api_tokens_auth_version AFTER UPDATE OF user_id, hash, revoked_at, scopes OR DELETE ON api_tokens
	FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_version();
CREATE TRIGGER users_auth_version AFTER UPDATE OF email, admin, disabled_at OR DELETE ON users
	FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_version();
CREATE TRIGGER memberships_auth_version AFTER INSERT OR UPDATE OR DELETE ON memberships
	FOR EACH STATEMENT EXECUTE FUNCTION bump_auth_version();
{{- else -}}
-- PostgreSQL's shards and auth version. SQLite has one writer, so no row is contended, and
-- its token cache asks the file whether anything changed (store/tokencache.go).
SELECT 1;
{{- end}}
