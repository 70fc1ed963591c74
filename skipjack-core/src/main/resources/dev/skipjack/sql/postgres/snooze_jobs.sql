-- Operator snooze: pushes waiting jobs to run later; they become scheduled until then.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- Index: primary key.
-- Parameters: ids, delay in milliseconds.
WITH target AS (
    SELECT id FROM {{jobs}}
    WHERE id = ANY (?::bigint[])
      AND state IN ('scheduled', 'available', 'retryable')
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state  = 'scheduled',
    run_at = {{now}} + ?::bigint * interval '1 millisecond'
FROM target
WHERE j.id = target.id
RETURNING j.id, j.queue
