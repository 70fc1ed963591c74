-- Workflows (F-14), after decrement_pending_deps.sql in the same transaction, as its own statement:
-- a waiting child none of whose edges is pending any more becomes available (scheduled, when its
-- own run_at is still ahead).
-- Index: primary key.
-- Parameters: child ids (JSON array).
UPDATE {{jobs}}
SET state = CASE WHEN run_at > {{statement_now}} THEN 'scheduled' ELSE 'available' END
WHERE id IN (SELECT value FROM json_each(?))
  AND state = 'waiting'
  AND pending_deps = 0
RETURNING id, queue
