-- Operator retry: makes jobs available now, from any state but running and available; a job that
-- has spent its attempts gets one more, so it can run. Errors are kept as history.
-- A finished unique job (F-10) whose key another job holds by now is left as it is: two jobs
-- holding one key is what jobs_unique_idx forbids.
-- A workflow's job (F-14) is left as it is: its workflow counted it as ended, and its dependents
-- were released or cancelled accordingly.
-- A finished job of a concurrency or sequence key (F-12, F-13) goes back to waiting for a slot of
-- its key, as at enqueue, so a retry cannot run one job over the limit; a discarded job of an ordered
-- key with the BLOCK policy too: admission takes the key's waiting jobs in enqueue order, so the
-- job that blocked the key runs next, and one discarded behind the head waits for its turn (sent
-- straight to available, it ran beside the head and before the jobs ahead of it).
-- stop_requested is cleared: a request made while the job ran (and ignored by its completion)
-- is not carried into its next execution, even one a node of an older version claims.
-- Index: primary key; jobs_unique_idx for the holder.
-- Parameters: ids (JSON array).
UPDATE {{jobs}} AS t
SET state        = CASE WHEN t.concurrency_key IS NOT NULL
                             AND t.state IN ('completed', 'discarded', 'cancelled')
                        THEN 'waiting' ELSE 'available' END,
    run_at       = {{now}},
    finished_at  = NULL,
    stop_requested = NULL,
    max_attempts = max(t.max_attempts, t.attempt + 1)
WHERE t.id IN (SELECT value FROM json_each(?))
  AND t.state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled')
  AND t.workflow_id IS NULL
  AND (t.unique_key IS NULL OR t.state IN ('scheduled', 'retryable') OR NOT EXISTS (
          SELECT 1 FROM {{jobs}} AS holder
          WHERE holder.unique_key = t.unique_key
            AND holder.id <> t.id
            AND (holder.state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
                 OR (holder.state = 'completed' AND holder.unique_includes_completed = 1))))
RETURNING id, queue
