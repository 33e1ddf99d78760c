-- The email blacklist belongs to an account, as its address says
-- (/api/v2/accounts/{number}/email-blacklist, CONTRACT §1.8): an entry made for one account
-- no longer refuses another account's sending address. Entries made before were
-- service-wide, so each is kept for every account: nothing refused before is allowed now.
CREATE TABLE email_blacklist_by_account (
	account_id  {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	email       TEXT NOT NULL,
	created_at  {{.BigInt}} NOT NULL,
	PRIMARY KEY (account_id, email)
){{.WithoutRowID}};

INSERT INTO email_blacklist_by_account (account_id, email, created_at)
	SELECT a.id, b.email, b.created_at FROM accounts a CROSS JOIN email_blacklist b;

DROP TABLE email_blacklist;
ALTER TABLE email_blacklist_by_account RENAME TO email_blacklist;
