-- Makes scheduled and retryable jobs whose time has come available, and returns them. Safe to run
-- from every thread and node at once: the statement runs under the write lock and checks the state
-- again on the row.
-- Index: jobs_due_idx (run_at) WHERE state IN ('scheduled', 'retryable').
-- Parameters: limit.
UPDATE {{jobs}}
SET state = 'available'
WHERE id IN (
        SELECT id
        FROM {{jobs}}
        WHERE state IN ('scheduled', 'retryable')
          AND run_at <= {{now}}
        ORDER BY run_at
        LIMIT ?)
  AND +state IN ('scheduled', 'retryable')
RETURNING id, queue
