-- Makes scheduled and retryable jobs whose time has come available for claiming.
-- Safe to run from every node at once: SKIP LOCKED splits the rows, and the UPDATE re-checks state.
-- Index: jobs_due_idx (run_at) WHERE state IN ('scheduled', 'retryable').
-- Parameters: limit.
-- Returns: id, queue (id first, as every statement run through Dialect.updateReturning).
WITH due AS (
    SELECT id
    FROM {{jobs}}
    WHERE state IN ('scheduled', 'retryable')
      AND run_at <= {{now}}
    ORDER BY run_at
    LIMIT ?
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state = 'available'
FROM due
WHERE j.id = due.id
  AND j.state IN ('scheduled', 'retryable')
RETURNING j.id, j.queue
