-- Operator snooze: pushes waiting jobs to run later; they become scheduled until the delay has passed.
-- Index: primary key.
-- Parameters: ?1 ids (JSON array), ?2 delay in milliseconds.
UPDATE {{jobs}}
SET state  = 'scheduled',
    run_at = {{now}} + ?2 * 1000
WHERE id IN (SELECT value FROM json_each(?1))
  AND state IN ('scheduled', 'available', 'retryable')
RETURNING id, queue
