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
CREATE TABLE data_versions (
	account_id  INTEGER PRIMARY KEY,
	version     INTEGER NOT NULL
);

INSERT INTO data_versions (account_id, version) SELECT id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) FROM accounts;

CREATE TRIGGER messages_version_insert AFTER INSERT ON messages BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;

CREATE TRIGGER messages_version_update AFTER UPDATE ON messages BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;

CREATE TRIGGER messages_version_delete AFTER DELETE ON messages BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;

CREATE TRIGGER call_recordings_version_insert AFTER INSERT ON call_recordings BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;

CREATE TRIGGER call_recordings_version_update AFTER UPDATE ON call_recordings BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;

CREATE TRIGGER call_recordings_version_delete AFTER DELETE ON call_recordings BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;

-- A recording shows its account's number: renumbering an account changes its recordings.
CREATE TRIGGER accounts_version_update AFTER UPDATE OF number ON accounts BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.id, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
	ON CONFLICT (account_id) DO UPDATE SET version = max(version + 1, excluded.version);
END;
