-- When a user was last disabled: an OAuth authorization code issued before then never
-- makes a grant, even once the user is enabled again (their grants and tokens were revoked
-- when they were disabled; a code still in a client's hands must not bring them back).
ALTER TABLE users ADD COLUMN last_disabled_at {{.BigInt}};
UPDATE users SET last_disabled_at = disabled_at WHERE disabled_at IS NOT NULL;
