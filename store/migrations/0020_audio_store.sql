-- Recording audio lives in an audio store (answerdesk.AudioStore): the database itself, a
-- directory or S3-compatible object storage. A recording's row names its object: the
-- store's kind (db, file, s3), the key, and what was stored (type, size, SHA-256).
ALTER TABLE call_recordings ADD COLUMN audio_store TEXT;
ALTER TABLE call_recordings ADD COLUMN audio_key TEXT;
ALTER TABLE call_recordings ADD COLUMN audio_type TEXT;
ALTER TABLE call_recordings ADD COLUMN audio_size {{.BigInt}};
ALTER TABLE call_recordings ADD COLUMN audio_sha256 TEXT;
-- The message the recorded call produced, when the phone system names it.
ALTER TABLE call_recordings ADD COLUMN message_id {{.BigInt}};
CREATE INDEX call_recordings_message ON call_recordings(message_id) WHERE message_id IS NOT NULL;
-- An ingest is retry-safe by (account, call_sid): the same call handed over again is the
-- recording already stored.
CREATE UNIQUE INDEX call_recordings_call_sid ON call_recordings(account_id, call_sid);

-- The database's own audio store: an object is its chunks, each written in a transaction
-- of its own, so an upload never holds the writer for long and nothing reads a whole file.
-- An object is complete once its last chunk is in; an incomplete one (an upload cut off,
-- a crash) is swept.
CREATE TABLE audio_objects (
	key         TEXT PRIMARY KEY,
	size        {{.BigInt}} NOT NULL DEFAULT 0,
	sha256      TEXT,
	complete    INTEGER NOT NULL DEFAULT 0,
	created_at  {{.BigInt}} NOT NULL
);
CREATE TABLE audio_chunks (
	id      {{.ID}},
	key     TEXT NOT NULL REFERENCES audio_objects(key) ON DELETE CASCADE,
	seq     {{.BigInt}} NOT NULL,
	offset_ {{.BigInt}} NOT NULL, -- the chunk's first byte in the object
	data    {{.Blob}} NOT NULL,
	UNIQUE (key, seq)
);
CREATE INDEX audio_chunks_offset ON audio_chunks(key, offset_);

-- Audio stored before: each file becomes one object of one chunk, in place.
INSERT INTO audio_objects (key, size, complete, created_at)
	SELECT 'recordings/db/' || recording_id, length(data), 1, created_at FROM recording_audio;
INSERT INTO audio_chunks (key, seq, offset_, data)
	SELECT 'recordings/db/' || recording_id, 0, 0, data FROM recording_audio;
UPDATE call_recordings SET audio_store = 'db', audio_key = 'recordings/db/' || id,
	audio_type = (SELECT content_type FROM recording_audio a WHERE a.recording_id = call_recordings.id),
	audio_size = (SELECT length(data) FROM recording_audio a WHERE a.recording_id = call_recordings.id)
	WHERE id IN (SELECT recording_id FROM recording_audio);
UPDATE call_recordings SET has_audio = 0 WHERE audio_key IS NULL;
DROP TABLE recording_audio;

-- A token narrowed to some scopes (recordings:write for a phone system, which must read
-- nothing): a space-separated list. NULL is a full token, with every scope of its user.
ALTER TABLE api_tokens ADD COLUMN scopes TEXT;

-- Recordings Twilio said are ready (its RecordingStatusCallback), fetched into the audio
-- store by a worker: durable, retried, once per recording sid.
CREATE TABLE recording_fetches (
	id               {{.ID}},
	account_id       {{.BigInt}} NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	recording_sid    TEXT NOT NULL UNIQUE,
	call_sid         TEXT NOT NULL,
	url              TEXT NOT NULL,
	started_at       {{.BigInt}} NOT NULL,
	duration_sec     {{.BigInt}} NOT NULL DEFAULT 0,
	status           TEXT NOT NULL, -- pending, fetching, done, failed
	attempts         {{.BigInt}} NOT NULL DEFAULT 0,
	next_attempt_at  {{.BigInt}} NOT NULL,
	lease_until      {{.BigInt}},
	last_error       TEXT,
	created_at       {{.BigInt}} NOT NULL,
	updated_at       {{.BigInt}} NOT NULL
);
CREATE INDEX recording_fetches_due ON recording_fetches(next_attempt_at) WHERE status IN ('pending', 'fetching');
