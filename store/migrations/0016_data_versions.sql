{{- /* The engines' header comments are part of the SQL each ran when this migration was two
     files (see migrationList in ../db.go), so they stay as they were. */ -}}
{{if .Postgres -}}
-- PostgreSQL twin of ../0016_data_versions.sql: a per-account data version bumped by
-- triggers in the same transaction as every write to the account's messages or call
-- recordings, read per request to key ETags and the in-process cache of encoded pages (safe
-- across replicas: every replica reads the same row). Versions only grow. A version is the
-- write's time in unix milliseconds (or one more than the last), so a copied or restored
-- database goes on past every version the old one handed out (see the SQLite migration).
{{- else -}}
-- A per-account data version, bumped by triggers in the same transaction as every write to
-- the account's messages or call recordings (insert, acknowledge, read/unread, dispatch and
-- escalation changes, retention deletes, audio expiry). A list or get response is a function
-- of the caller's accounts, the query and these versions, so an ETag and a cache of encoded
-- pages keyed by them are never stale, and stay correct with several replicas on one
-- database: each request reads the versions, which costs one primary-key lookup per account.
-- Versions only grow, so the sum over an account set changes whenever any of them does.
-- A version is the time of the write in unix milliseconds (or one more than the last, for
-- writes in the same millisecond), not a count: a database copied (db copy) or restored from
-- a backup goes on from the clock, past every version the old one handed out, so an ETag a
-- client kept from before can never name different data after.
{{- end}}
CREATE TABLE data_versions (
	account_id  {{.BigInt}} PRIMARY KEY,
	version     {{.BigInt}} NOT NULL
);

INSERT INTO data_versions (account_id, version) SELECT id, {{.NowMs}} FROM accounts;
{{- if .Postgres}}

CREATE FUNCTION bump_data_version(acct BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (acct, {{.NowMs}})
	ON CONFLICT (account_id) DO UPDATE SET version = greatest(data_versions.version + 1, excluded.version);
END;
$$;

CREATE FUNCTION data_version_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		PERFORM bump_data_version(NEW.account_id);
	END IF;
	IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.account_id <> NEW.account_id) THEN
		PERFORM bump_data_version(OLD.account_id);
	END IF;
	RETURN NULL;
END;
$$;

CREATE TRIGGER messages_data_version AFTER INSERT OR UPDATE OR DELETE ON messages
	FOR EACH ROW EXECUTE FUNCTION data_version_row();
CREATE TRIGGER call_recordings_data_version AFTER INSERT OR UPDATE OR DELETE ON call_recordings
	FOR EACH ROW EXECUTE FUNCTION data_version_row();

-- A recording shows its account's number: renumbering an account changes its recordings.
CREATE FUNCTION data_version_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM bump_data_version(NEW.id);
	RETURN NULL;
END;
$$;

CREATE TRIGGER accounts_data_version AFTER UPDATE OF number ON accounts
	FOR EACH ROW EXECUTE FUNCTION data_version_account();
{{- else}}

CREATE TRIGGER messages_version_insert AFTER INSERT ON messages BEGIN
	{{template "sqlite_bump" "NEW.account_id"}}
END;

CREATE TRIGGER messages_version_update AFTER UPDATE ON messages BEGIN
	{{template "sqlite_bump" "NEW.account_id"}}
	{{template "sqlite_bump" "OLD.account_id"}}
END;

CREATE TRIGGER messages_version_delete AFTER DELETE ON messages BEGIN
	{{template "sqlite_bump" "OLD.account_id"}}
END;

CREATE TRIGGER call_recordings_version_insert AFTER INSERT ON call_recordings BEGIN
	{{template "sqlite_bump" "NEW.account_id"}}
END;

CREATE TRIGGER call_recordings_version_update AFTER UPDATE ON call_recordings BEGIN
	{{template "sqlite_bump" "NEW.account_id"}}
	{{template "sqlite_bump" "OLD.account_id"}}
END;

CREATE TRIGGER call_recordings_version_delete AFTER DELETE ON call_recordings BEGIN
	{{template "sqlite_bump" "OLD.account_id"}}
END;

-- A recording shows its account's number: renumbering an account changes its recordings.
CREATE TRIGGER accounts_version_update AFTER UPDATE OF number ON accounts BEGIN
	{{template "sqlite_bump" "NEW.id"}}
END;
{{- end}}
{{- /* SQLite's triggers cannot call a function: each moves the version of the account in the
     row given (NEW.account_id, OLD.account_id, NEW.id) with this statement. */}}
{{- define "sqlite_bump"}}INSERT INTO data_versions (account_id, version) VALUES ({{.}}, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);{{end}}
