-- A replay starts a fresh set of retries: the backoff counts only attempts after the last
-- replay. dispatch_deliveries.attempts stays the count of claims (the lease's token).
ALTER TABLE dispatch_deliveries ADD COLUMN replayed_after {{.BigInt}};
