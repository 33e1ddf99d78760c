-- A delivery's body is rendered for each attempt from its message and method, within the
-- delivery's share of its message's budget (body_limit), and never stored: stored bodies
-- were what one message at the configuration limits grew the database by. A delivery
-- queued before this migration is rendered afresh at its next attempt, with the largest
-- budget a body could have had.
ALTER TABLE dispatch_deliveries ADD COLUMN body_limit {{.BigInt}} NOT NULL DEFAULT 262144;
ALTER TABLE dispatch_deliveries DROP COLUMN body;
ALTER TABLE dispatch_deliveries DROP COLUMN content_type;

-- What a method's templates will always warn of (variables that never resolve), found when
-- the method is configured: a new delivery starts with them, before its first rendering.
ALTER TABLE delivery_methods ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]';
