-- Provisioning: an admin can disable a user. A disabled user's API tokens, OAuth grants and
-- web sessions stop working at once (authentication checks disabled_at), and they cannot
-- sign in; enabling them again restores their tokens (grants and sessions are revoked).
ALTER TABLE users ADD COLUMN disabled_at {{.BigInt}};
