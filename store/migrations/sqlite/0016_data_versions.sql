-- A per-account data version, bumped by triggers in the same transaction as every write to
-- the account's messages or call recordings (insert, acknowledge, read/unread, dispatch and
-- escalation changes, retention deletes, audio expiry). A list or get response is a function
-- of the caller's accounts, the query and these versions, so an ETag and a cache of encoded
-- pages keyed by them are never stale, and stay correct with several replicas on one
-- database: each request reads the versions, which costs one primary-key lookup per account.
-- Versions only grow, so the sum over an account set changes whenever any of them does.
CREATE TABLE data_versions (
	account_id  INTEGER PRIMARY KEY,
	version     INTEGER NOT NULL
);

INSERT INTO data_versions (account_id, version) SELECT id, 1 FROM accounts;

CREATE TRIGGER messages_version_insert AFTER INSERT ON messages BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER messages_version_update AFTER UPDATE ON messages BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER messages_version_delete AFTER DELETE ON messages BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER call_recordings_version_insert AFTER INSERT ON call_recordings BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER call_recordings_version_update AFTER UPDATE ON call_recordings BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER call_recordings_version_delete AFTER DELETE ON call_recordings BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (OLD.account_id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;

-- A recording shows its account's number: renumbering an account changes its recordings.
CREATE TRIGGER accounts_version_update AFTER UPDATE OF number ON accounts BEGIN
	INSERT INTO data_versions (account_id, version) VALUES (NEW.id, 1)
	ON CONFLICT (account_id) DO UPDATE SET version = version + 1;
END;
