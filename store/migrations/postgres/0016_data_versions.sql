-- PostgreSQL twin of ../0016_data_versions.sql: a per-account data version bumped by
-- triggers in the same transaction as every write to the account's messages or call
-- recordings, read per request to key ETags and the in-process cache of encoded pages (safe
-- across replicas: every replica reads the same row). Versions only grow. A version is the
-- write's time in unix milliseconds (or one more than the last), so a copied or restored
-- database goes on past every version the old one handed out (see the SQLite migration).
CREATE TABLE data_versions (
	account_id  BIGINT PRIMARY KEY,
	version     BIGINT NOT NULL
);

INSERT INTO data_versions (account_id, version) SELECT id, (extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM accounts;

CREATE FUNCTION bump_data_version(acct BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (acct, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
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
