-- Operator retry: makes jobs available now, from any state but running and available; a job that
-- has spent its attempts gets one more, so it can run. Errors are kept as history.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE {{jobs}}
SET state        = 'available',
    run_at       = {{now}},
    finished_at  = NULL,
    max_attempts = max(max_attempts, attempt + 1)
WHERE id IN (SELECT value FROM json_each(?))
  AND state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled')
RETURNING id, queue
