-- To Dos: scheduled outbound tasks, their schedules, the occurrences the scheduler claims,
-- and every delivery attempt.

CREATE TABLE to_dos (
	id                 {{.ID}},
	account_id         {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	phone_id           {{.BigInt}} REFERENCES phone_numbers(id) ON DELETE SET NULL,
	name               TEXT NOT NULL,
	delivery_type      TEXT NOT NULL,
	contact            TEXT,
	message_text       TEXT,
	instructions       TEXT,
	from_number        TEXT,
	from_email         TEXT,
	sender_name        TEXT,
	subject            TEXT,
	sending_domain_id  {{.BigInt}} REFERENCES sending_domains(id) ON DELETE SET NULL,
	ai_assistant_id    TEXT,
	is_sending         INTEGER NOT NULL DEFAULT 0,
	created_by         {{.BigInt}},
	created_at         {{.BigInt}} NOT NULL,
	updated_at         {{.BigInt}} NOT NULL
);
CREATE INDEX to_dos_account_created ON to_dos(account_id, created_at DESC, id DESC);
CREATE INDEX to_dos_created ON to_dos(created_at DESC, id DESC);

CREATE TABLE schedules (
	id                   {{.ID}},
	schedulable_type     TEXT NOT NULL DEFAULT 'ToDo',
	schedulable_id       {{.BigInt}} NOT NULL REFERENCES to_dos(id) ON DELETE CASCADE,
	rule                 TEXT NOT NULL, -- JSON object, see answerdesk.Plan
	times                TEXT NOT NULL, -- JSON array of "HH:MM"
	starts_at            {{.BigInt}} NOT NULL,
	previous_occurrence  {{.BigInt}},
	next_occurrence      {{.BigInt}},
	created_at           {{.BigInt}} NOT NULL,
	updated_at           {{.BigInt}} NOT NULL,
	UNIQUE (schedulable_type, schedulable_id)
);
CREATE INDEX schedules_due ON schedules(next_occurrence) WHERE next_occurrence IS NOT NULL;

-- One row per scheduled firing. UNIQUE (to_do_id, scheduled_at) is what makes an occurrence
-- fire once: a restart that materialises it again finds it there.
CREATE TABLE to_do_occurrences (
	id            {{.ID}},
	to_do_id      {{.BigInt}} NOT NULL REFERENCES to_dos(id) ON DELETE CASCADE,
	scheduled_at  {{.BigInt}} NOT NULL,
	status        TEXT NOT NULL, -- pending, sending, sent, failed, skipped
	attempts      {{.BigInt}} NOT NULL DEFAULT 0,
	due_at        {{.BigInt}} NOT NULL, -- when the next attempt may start
	lease_until   {{.BigInt}},          -- while sending: when another worker may take it over
	provider_id   TEXT,
	error         TEXT,
	updated_at    {{.BigInt}} NOT NULL,
	UNIQUE (to_do_id, scheduled_at)
);
CREATE INDEX to_do_occurrences_open ON to_do_occurrences(due_at) WHERE status IN ('pending', 'sending');

CREATE TABLE to_do_attempts (
	id             {{.ID}},
	occurrence_id  {{.BigInt}} NOT NULL REFERENCES to_do_occurrences(id) ON DELETE CASCADE,
	to_do_id       {{.BigInt}} NOT NULL REFERENCES to_dos(id) ON DELETE CASCADE,
	at             {{.BigInt}} NOT NULL,
	channel        TEXT NOT NULL,
	status         TEXT NOT NULL, -- sent, failed, retry, skipped
	provider_id    TEXT,
	error          TEXT,
	duration_ms    {{.BigInt}} NOT NULL DEFAULT 0
);
CREATE INDEX to_do_attempts_to_do ON to_do_attempts(to_do_id, id DESC);
