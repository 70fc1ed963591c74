-- Operator retry: makes jobs available now, from any state but running and available. A job that
-- has spent its attempts gets one more, so it can run. Errors are kept as history.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- Index: primary key.
-- Parameters: ids.
WITH target AS (
    SELECT id FROM {{jobs}}
    WHERE id = ANY (?::bigint[])
      AND state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled')
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state        = 'available',
    run_at       = {{now}},
    finished_at  = NULL,
    max_attempts = greatest(j.max_attempts, j.attempt + 1)
FROM target
WHERE j.id = target.id
RETURNING j.id, j.queue
