-- External API dispatching: on-call contacts in escalation levels, their delivery methods,
-- and the durable outbox of deliveries with every attempt.

CREATE TABLE on_call_contacts (
	id                      {{.ID}},
	account_id              {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	name                    TEXT NOT NULL,
	escalation_level        {{.BigInt}} NOT NULL DEFAULT 1,
	escalate_after_minutes  {{.BigInt}} NOT NULL DEFAULT 15,
	created_at              {{.BigInt}} NOT NULL,
	deleted_at              {{.BigInt}} -- deliveries keep pointing at a deleted contact
);
CREATE INDEX on_call_contacts_account ON on_call_contacts(account_id, escalation_level) WHERE deleted_at IS NULL;

-- Secrets (Basic auth password, custom header values, signing secret) are sealed with
-- AES-GCM under a key derived from the key file: they must be sent, so they cannot be hashed.
CREATE TABLE delivery_methods (
	id                    {{.ID}},
	contact_id            {{.BigInt}} NOT NULL REFERENCES on_call_contacts(id) ON DELETE CASCADE,
	type                  TEXT NOT NULL,
	url                   TEXT NOT NULL,
	payload_type          TEXT NOT NULL,
	data                  TEXT NOT NULL, -- JSON [{field, value}]
	basic_username        TEXT,
	basic_password_sealed TEXT,
	headers_sealed        TEXT,          -- sealed JSON object
	header_names          TEXT NOT NULL DEFAULT '[]', -- JSON array, shown in responses
	signing_secret_sealed TEXT,
	disabled_at           {{.BigInt}},
	disabled_reason       TEXT,
	created_at            {{.BigInt}} NOT NULL
);
CREATE INDEX delivery_methods_contact ON delivery_methods(contact_id);

CREATE TABLE dispatch_deliveries (
	id                {{.ID}},
	uuid              TEXT NOT NULL UNIQUE,
	message_id        {{.BigInt}} NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
	account_id        {{.BigInt}} NOT NULL,
	contact_id        {{.BigInt}} NOT NULL REFERENCES on_call_contacts(id),
	method_id         {{.BigInt}} NOT NULL REFERENCES delivery_methods(id),
	escalation_level  {{.BigInt}} NOT NULL,
	url               TEXT NOT NULL,
	content_type      TEXT NOT NULL,
	body              {{.Blob}} NOT NULL, -- rendered once, so every retry sends the same bytes
	warnings          TEXT NOT NULL DEFAULT '[]',
	status            TEXT NOT NULL, -- pending, sending, delivered, failed
	attempts          {{.BigInt}} NOT NULL DEFAULT 0,
	next_attempt_at   {{.BigInt}} NOT NULL,
	lease_until       {{.BigInt}},
	created_at        {{.BigInt}} NOT NULL,
	updated_at        {{.BigInt}} NOT NULL
);
CREATE INDEX dispatch_deliveries_open ON dispatch_deliveries(next_attempt_at) WHERE status IN ('pending', 'sending');
CREATE INDEX dispatch_deliveries_message ON dispatch_deliveries(message_id, id);
CREATE INDEX dispatch_deliveries_account ON dispatch_deliveries(account_id, id DESC);

CREATE TABLE dispatch_attempts (
	id                {{.ID}},
	delivery_id       {{.BigInt}} NOT NULL REFERENCES dispatch_deliveries(id) ON DELETE CASCADE,
	at                {{.BigInt}} NOT NULL,
	http_status       {{.BigInt}},
	duration_ms       {{.BigInt}} NOT NULL,
	error             TEXT,
	response_excerpt  TEXT
);
CREATE INDEX dispatch_attempts_delivery ON dispatch_attempts(delivery_id, id);

-- Messages waiting for their next escalation level.
CREATE INDEX messages_next_escalation ON messages(next_escalation_at) WHERE next_escalation_at IS NOT NULL;
