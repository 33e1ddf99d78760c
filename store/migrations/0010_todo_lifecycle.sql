-- To Do lifecycle (CONTRACT §1.7): a state on every To Do, kept by the API (pause, resume,
-- cancel) and by the scheduler (completed once nothing is left to send).

ALTER TABLE to_dos ADD COLUMN state TEXT NOT NULL DEFAULT 'active'; -- active, paused, completed, cancelled

-- To Dos whose schedule has ended and that have nothing in flight are already completed.
UPDATE to_dos SET state = 'completed'
WHERE id IN (SELECT schedulable_id FROM schedules WHERE schedulable_type = 'ToDo' AND next_occurrence IS NULL)
  AND NOT EXISTS (SELECT 1 FROM to_do_occurrences o WHERE o.to_do_id = to_dos.id AND o.status IN ('pending', 'sending'));

-- GET /api/v2/to-dos?state=, newest first, for one account or (admins) all.
CREATE INDEX to_dos_account_state_created ON to_dos(account_id, state, created_at DESC, id DESC);
CREATE INDEX to_dos_state_created ON to_dos(state, created_at DESC, id DESC);

-- The deliveries of one To Do, newest first.
CREATE INDEX to_do_occurrences_to_do ON to_do_occurrences(to_do_id, scheduled_at DESC, id DESC);
