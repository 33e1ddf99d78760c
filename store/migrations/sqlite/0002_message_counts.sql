-- Message counts per account, UTC day and filterable attribute, kept by triggers in the same
-- transaction as the message change. A list's total is then a sum over at most a few rows
-- per day instead of a count over every matching message (100,000 index entries took ~5 ms).
-- Date filters are whole UTC days (CONTRACT §1.4), so the rollup answers them exactly.
CREATE TABLE message_counts (
	account_id  INTEGER NOT NULL,
	day         INTEGER NOT NULL, -- created_at / 86400000: days since 1970-01-01 UTC
	origin      TEXT NOT NULL,
	status      TEXT NOT NULL,
	read        INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (account_id, day, origin, status, read)
) WITHOUT ROWID;

INSERT INTO message_counts (account_id, day, origin, status, read, n)
	SELECT account_id, created_at / 86400000, origin, status, read, count(*)
	FROM messages GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER messages_count_insert AFTER INSERT ON messages BEGIN
	INSERT INTO message_counts (account_id, day, origin, status, read, n)
	VALUES (NEW.account_id, NEW.created_at / 86400000, NEW.origin, NEW.status, NEW.read, 1)
	ON CONFLICT (account_id, day, origin, status, read) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER messages_count_delete AFTER DELETE ON messages BEGIN
	UPDATE message_counts SET n = n - 1
	WHERE account_id = OLD.account_id AND day = OLD.created_at / 86400000
	  AND origin = OLD.origin AND status = OLD.status AND read = OLD.read;
END;

CREATE TRIGGER messages_count_update AFTER UPDATE OF account_id, created_at, origin, status, read ON messages BEGIN
	UPDATE message_counts SET n = n - 1
	WHERE account_id = OLD.account_id AND day = OLD.created_at / 86400000
	  AND origin = OLD.origin AND status = OLD.status AND read = OLD.read;
	INSERT INTO message_counts (account_id, day, origin, status, read, n)
	VALUES (NEW.account_id, NEW.created_at / 86400000, NEW.origin, NEW.status, NEW.read, 1)
	ON CONFLICT (account_id, day, origin, status, read) DO UPDATE SET n = n + 1;
END;
