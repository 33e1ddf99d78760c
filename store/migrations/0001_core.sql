-- Core schema: accounts, users, tokens, messages, call recordings.
-- Times are {{.BigInt}} unix milliseconds (UTC); booleans are INTEGER 0/1{{if .Postgres}}, as on SQLite{{end}}.
{{- if .Postgres}}

-- PostgreSQL: SQLite's functions that the queries use, so every query is one text on both
-- engines. group_concat as SQLite has it (comma-separated, NULLs skipped), and instr.
CREATE FUNCTION group_concat_step(acc text, v anyelement) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN v IS NULL THEN acc WHEN acc IS NULL THEN v::text ELSE acc || ',' || v::text END
$$;
CREATE AGGREGATE group_concat(anyelement) (SFUNC = group_concat_step, STYPE = text);
CREATE FUNCTION instr(s text, sub text) RETURNS integer LANGUAGE sql IMMUTABLE STRICT AS $$ SELECT strpos(s, sub) $$;
{{- end}}

CREATE TABLE accounts (
	id          {{.ID}},
	number      TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	time_zone   TEXT NOT NULL DEFAULT 'America/New_York',
	created_at  {{.BigInt}} NOT NULL
);

CREATE TABLE users (
	id             {{.ID}},
	email          TEXT NOT NULL UNIQUE,
	password_hash  TEXT NOT NULL,
	admin          INTEGER NOT NULL DEFAULT 0,
	created_at     {{.BigInt}} NOT NULL
);

CREATE TABLE memberships (
	user_id     {{.BigInt}} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	account_id  {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	PRIMARY KEY (user_id, account_id)
){{.WithoutRowID}};
CREATE INDEX memberships_account ON memberships(account_id);

-- Phone numbers of an account: SMS-enabled ones may send SMS To Dos; an attached AI
-- assistant enables AI outbound calls.
CREATE TABLE phone_numbers (
	id               {{.ID}},
	account_id       {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	number           TEXT NOT NULL UNIQUE,
	sms_enabled      INTEGER NOT NULL DEFAULT 0,
	ai_assistant_id  TEXT
);
CREATE INDEX phone_numbers_account ON phone_numbers(account_id);

-- Authenticated email-sending domains of an account.
CREATE TABLE sending_domains (
	id          {{.ID}},
	account_id  {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	domain      TEXT NOT NULL,
	created_at  {{.BigInt}} NOT NULL,
	UNIQUE (account_id, domain)
);

-- Sending addresses that may never be used as from_email.
CREATE TABLE email_blacklist (
	email       TEXT PRIMARY KEY,
	created_at  {{.BigInt}} NOT NULL
){{.WithoutRowID}};

-- Customer API tokens: only the SHA-256 of the token is stored.
CREATE TABLE api_tokens (
	id            {{.ID}},
	user_id       {{.BigInt}} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name          TEXT NOT NULL,
	hash          {{.Blob}} NOT NULL UNIQUE,
	prefix        TEXT NOT NULL,
	created_at    {{.BigInt}} NOT NULL,
	last_used_at  {{.BigInt}},
	revoked_at    {{.BigInt}}
);
CREATE INDEX api_tokens_user ON api_tokens(user_id);

CREATE TABLE messages (
	id                       {{.ID}},
	uuid                     TEXT NOT NULL UNIQUE,
	account_id               {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	agent_id                 {{.BigInt}},
	user_id                  {{.BigInt}},
	pickup_user_id           {{.BigInt}},
	contact_id               {{.BigInt}},
	delivered_by             {{.BigInt}},
	delivered_to             {{.BigInt}},
	sale_id                  {{.BigInt}},
	did_id                   {{.BigInt}},
	escalation_level_id      {{.BigInt}},
	activities_count         {{.BigInt}} NOT NULL DEFAULT 0,
	closing_action_group_id  {{.BigInt}},
	escalation_counter       {{.BigInt}} NOT NULL DEFAULT 0,
	call_id                  {{.BigInt}},
	chat_session_id          {{.BigInt}},
	to_do_task_id            {{.BigInt}},
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
	created_at               {{.BigInt}} NOT NULL,
	updated_at               {{.BigInt}} NOT NULL,
	pickup_date              {{.BigInt}},
	delivered_at             {{.BigInt}},
	next_escalation_at       {{.BigInt}},
	message_received_date    {{.BigInt}},
	send_at                  {{.BigInt}},
	acknowledged_at          {{.BigInt}},
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
	id                   {{.ID}},
	account_id           {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	call_id              {{.BigInt}} NOT NULL,
	call_sid             TEXT NOT NULL,
	did_number           TEXT NOT NULL,
	from_number          TEXT NOT NULL,
	agent_username       TEXT,
	started_at           {{.BigInt}} NOT NULL,
	has_audio            INTEGER NOT NULL DEFAULT 0,
	-- call detail record
	cdr_id               {{.BigInt}} NOT NULL,
	unique_call_id       {{.BigInt}} NOT NULL,
	agent_id             {{.BigInt}},
	original_call_id     {{.BigInt}},
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
	connection_sec       {{.BigInt}} NOT NULL DEFAULT 0,
	ivr_sec              {{.BigInt}} NOT NULL DEFAULT 0,
	wait_sec             {{.BigInt}} NOT NULL DEFAULT 0,
	talk_sec             {{.BigInt}} NOT NULL DEFAULT 0,
	hold_sec             {{.BigInt}} NOT NULL DEFAULT 0,
	transfer_sec         {{.BigInt}} NOT NULL DEFAULT 0,
	wrap_sec             {{.BigInt}} NOT NULL DEFAULT 0,
	conference_sec       {{.BigInt}} NOT NULL DEFAULT 0,
	conference_talk_sec  {{.BigInt}} NOT NULL DEFAULT 0,
	start_time           {{.BigInt}} NOT NULL,
	agent_answer_time    {{.BigInt}},
	end_time             {{.BigInt}},
	hang_up_time         {{.BigInt}},
	call_created_at      {{.BigInt}} NOT NULL,
	is_orphaned          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX call_recordings_account_started ON call_recordings(account_id, started_at DESC, id DESC);
CREATE INDEX call_recordings_account_skill ON call_recordings(account_id, skill_name, started_at DESC, id DESC);
CREATE INDEX call_recordings_started ON call_recordings(started_at DESC, id DESC);
CREATE INDEX call_recordings_call ON call_recordings(call_id);

-- Audio lives apart from the row so retention can drop it (31 days) while the CDR stays (3 years).
CREATE TABLE recording_audio (
	recording_id  {{.BigInt}} PRIMARY KEY REFERENCES call_recordings(id) ON DELETE CASCADE,
	content_type  TEXT NOT NULL,
	data          {{.Blob}} NOT NULL,
	created_at    {{.BigInt}} NOT NULL
);
