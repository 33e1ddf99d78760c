-- Core schema: accounts, users, tokens, messages, call recordings.
-- Times are INTEGER unix milliseconds (UTC); booleans are INTEGER 0/1.

CREATE TABLE accounts (
	id          INTEGER PRIMARY KEY,
	number      TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	time_zone   TEXT NOT NULL DEFAULT 'America/New_York',
	created_at  INTEGER NOT NULL
);

CREATE TABLE users (
	id             INTEGER PRIMARY KEY,
	email          TEXT NOT NULL UNIQUE,
	password_hash  TEXT NOT NULL,
	admin          INTEGER NOT NULL DEFAULT 0,
	created_at     INTEGER NOT NULL
);

CREATE TABLE memberships (
	user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	PRIMARY KEY (user_id, account_id)
) WITHOUT ROWID;
CREATE INDEX memberships_account ON memberships(account_id);

-- Phone numbers of an account: SMS-enabled ones may send SMS To Dos; an attached AI
-- assistant enables AI outbound calls.
CREATE TABLE phone_numbers (
	id               INTEGER PRIMARY KEY,
	account_id       INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	number           TEXT NOT NULL UNIQUE,
	sms_enabled      INTEGER NOT NULL DEFAULT 0,
	ai_assistant_id  TEXT
);
CREATE INDEX phone_numbers_account ON phone_numbers(account_id);

-- Authenticated email-sending domains of an account.
CREATE TABLE sending_domains (
	id          INTEGER PRIMARY KEY,
	account_id  INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	domain      TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	UNIQUE (account_id, domain)
);

-- Sending addresses that may never be used as from_email.
CREATE TABLE email_blacklist (
	email       TEXT PRIMARY KEY,
	created_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- Customer API tokens: only the SHA-256 of the token is stored.
CREATE TABLE api_tokens (
	id            INTEGER PRIMARY KEY,
	user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name          TEXT NOT NULL,
	hash          BLOB NOT NULL UNIQUE,
	prefix        TEXT NOT NULL,
	created_at    INTEGER NOT NULL,
	last_used_at  INTEGER,
	revoked_at    INTEGER
);
CREATE INDEX api_tokens_user ON api_tokens(user_id);

CREATE TABLE messages (
	id                       INTEGER PRIMARY KEY,
	uuid                     TEXT NOT NULL UNIQUE,
	account_id               INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	agent_id                 INTEGER,
	user_id                  INTEGER,
	pickup_user_id           INTEGER,
	contact_id               INTEGER,
	delivered_by             INTEGER,
	delivered_to             INTEGER,
	sale_id                  INTEGER,
	did_id                   INTEGER,
	escalation_level_id      INTEGER,
	activities_count         INTEGER NOT NULL DEFAULT 0,
	closing_action_group_id  INTEGER,
	escalation_counter       INTEGER NOT NULL DEFAULT 0,
	call_id                  INTEGER,
	chat_session_id          INTEGER,
	to_do_task_id            INTEGER,
	phone_number             TEXT,
	extension                TEXT,
	caller_id                TEXT,
	first_name               TEXT,
	last_name                TEXT,
	company_name             TEXT,
	content                  TEXT NOT NULL,
	status                   TEXT NOT NULL DEFAULT 'new',
	ivr                      TEXT,
	phone                    TEXT,
	email                    TEXT,
	call_ref_id              TEXT,
	note                     TEXT,
	address                  TEXT,
	address2                 TEXT,
	city                     TEXT,
	state                    TEXT,
	zip                      TEXT,
	how_you_hear_about_us    TEXT,
	alt_phone                TEXT,
	receiver_name            TEXT,
	non_message_type         TEXT,
	email_subject            TEXT,
	origin                   TEXT NOT NULL, -- stored upper case, so filters compare exactly
	disposition              TEXT,
	klass_names              TEXT,
	read                     INTEGER NOT NULL DEFAULT 0,
	is_emergency             INTEGER NOT NULL DEFAULT 0,
	positive_data_dip        INTEGER NOT NULL DEFAULT 0,
	from_to_do               INTEGER NOT NULL DEFAULT 0,
	created_at               INTEGER NOT NULL,
	updated_at               INTEGER NOT NULL,
	pickup_date              INTEGER,
	delivered_at             INTEGER,
	next_escalation_at       INTEGER,
	message_received_date    INTEGER,
	send_at                  INTEGER,
	acknowledged_at          INTEGER,
	answers                  TEXT NOT NULL DEFAULT '{}'
);
-- Every list is "newest first" within the caller's accounts, optionally by origin or status.
-- read rides along in the index so a read filter is answered from the index alone.
CREATE INDEX messages_account_created ON messages(account_id, created_at DESC, id DESC, read);
CREATE INDEX messages_account_origin ON messages(account_id, origin, created_at DESC, id DESC);
CREATE INDEX messages_account_status ON messages(account_id, status, created_at DESC, id DESC);
CREATE INDEX messages_created ON messages(created_at DESC, id DESC, read);
CREATE INDEX messages_call ON messages(call_id) WHERE call_id IS NOT NULL;

CREATE TABLE call_recordings (
	id                   INTEGER PRIMARY KEY,
	account_id           INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	call_id              INTEGER NOT NULL,
	call_sid             TEXT NOT NULL,
	did_number           TEXT NOT NULL,
	from_number          TEXT NOT NULL,
	agent_username       TEXT,
	started_at           INTEGER NOT NULL,
	has_audio            INTEGER NOT NULL DEFAULT 0,
	-- call detail record
	cdr_id               INTEGER NOT NULL,
	unique_call_id       INTEGER NOT NULL,
	agent_id             INTEGER,
	original_call_id     INTEGER,
	call_type            TEXT NOT NULL,
	start_client         TEXT,
	end_client           TEXT,
	callerid             TEXT NOT NULL,
	number_dialed        TEXT NOT NULL,
	did                  TEXT NOT NULL,
	agent_name           TEXT,
	skill_name           TEXT,
	skill_id             TEXT,
	who_hung_up          TEXT,
	connection_sec       INTEGER NOT NULL DEFAULT 0,
	ivr_sec              INTEGER NOT NULL DEFAULT 0,
	wait_sec             INTEGER NOT NULL DEFAULT 0,
	talk_sec             INTEGER NOT NULL DEFAULT 0,
	hold_sec             INTEGER NOT NULL DEFAULT 0,
	transfer_sec         INTEGER NOT NULL DEFAULT 0,
	wrap_sec             INTEGER NOT NULL DEFAULT 0,
	conference_sec       INTEGER NOT NULL DEFAULT 0,
	conference_talk_sec  INTEGER NOT NULL DEFAULT 0,
	start_time           INTEGER NOT NULL,
	agent_answer_time    INTEGER,
	end_time             INTEGER,
	hang_up_time         INTEGER,
	call_created_at      INTEGER NOT NULL,
	is_orphaned          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX call_recordings_account_started ON call_recordings(account_id, started_at DESC, id DESC);
CREATE INDEX call_recordings_account_skill ON call_recordings(account_id, skill_name, started_at DESC, id DESC);
CREATE INDEX call_recordings_started ON call_recordings(started_at DESC, id DESC);
CREATE INDEX call_recordings_call ON call_recordings(call_id);

-- Audio lives apart from the row so retention can drop it (31 days) while the CDR stays (3 years).
CREATE TABLE recording_audio (
	recording_id  INTEGER PRIMARY KEY REFERENCES call_recordings(id) ON DELETE CASCADE,
	content_type  TEXT NOT NULL,
	data          BLOB NOT NULL,
	created_at    INTEGER NOT NULL
);
