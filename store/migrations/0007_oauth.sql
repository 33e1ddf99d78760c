-- The embedded OAuth 2.1 authorization server and web sign-in. Secrets (codes, tokens,
-- client secrets, session ids) are stored as SHA-256 hashes only.

-- Clients registered by RFC 7591, and client ID metadata documents (kind 'metadata', the
-- client_id is the document's https URL) cached until refresh_after.
CREATE TABLE oauth_clients (
	id             TEXT PRIMARY KEY,
	kind           TEXT NOT NULL, -- registered, metadata
	name           TEXT NOT NULL,
	redirect_uris  TEXT NOT NULL, -- JSON array
	client_uri     TEXT NOT NULL DEFAULT '',
	logo_uri       TEXT NOT NULL DEFAULT '',
	auth_method    TEXT NOT NULL, -- none, client_secret_basic, client_secret_post
	secret_hash    {{.Blob}},
	created_at     {{.BigInt}} NOT NULL,
	refresh_after  {{.BigInt}}
);

-- A grant is one authorization a user gave a client for a resource: the family of every
-- access and refresh token issued from one authorization code. Revoking it revokes them all.
CREATE TABLE oauth_grants (
	id            {{.ID}},
	user_id       {{.BigInt}} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	client_id     TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
	scopes        TEXT NOT NULL, -- space-separated
	resource      TEXT NOT NULL,
	created_at    {{.BigInt}} NOT NULL,
	last_used_at  {{.BigInt}},
	revoked_at    {{.BigInt}}
);
CREATE INDEX oauth_grants_user ON oauth_grants(user_id);
CREATE INDEX oauth_grants_client ON oauth_grants(client_id);

CREATE TABLE oauth_codes (
	hash            {{.Blob}} PRIMARY KEY,
	client_id       TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
	user_id         {{.BigInt}} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	redirect_uri    TEXT NOT NULL,
	code_challenge  TEXT NOT NULL,
	scopes          TEXT NOT NULL,
	resource        TEXT NOT NULL,
	created_at      {{.BigInt}} NOT NULL,
	expires_at      {{.BigInt}} NOT NULL,
	used_at         {{.BigInt}},
	reused_at       {{.BigInt}},
	grant_id        {{.BigInt}} REFERENCES oauth_grants(id) ON DELETE SET NULL
){{.WithoutRowID}};
CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);

-- kind 'access' (1 hour) or 'refresh' (30 days, single use: rotated_at is set when it is
-- exchanged, and presenting it again revokes the grant).
CREATE TABLE oauth_tokens (
	hash        {{.Blob}} PRIMARY KEY,
	grant_id    {{.BigInt}} NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
	kind        TEXT NOT NULL,
	created_at  {{.BigInt}} NOT NULL,
	expires_at  {{.BigInt}} NOT NULL,
	rotated_at  {{.BigInt}},
	revoked_at  {{.BigInt}}
){{.WithoutRowID}};
CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens(expires_at);

-- Web sign-in sessions (the /login cookie); csrf is the token every form of the session carries.
CREATE TABLE web_sessions (
	hash        {{.Blob}} PRIMARY KEY,
	user_id     {{.BigInt}} NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	csrf        TEXT NOT NULL,
	created_at  {{.BigInt}} NOT NULL,
	expires_at  {{.BigInt}} NOT NULL
){{.WithoutRowID}};
CREATE INDEX web_sessions_user ON web_sessions(user_id);
CREATE INDEX web_sessions_expires ON web_sessions(expires_at);
