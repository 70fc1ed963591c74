-- Operator retry, step 2 of 2: available now; a job that has spent its attempts gets one more, so
-- it can run. Errors are kept as history.
-- A finished job of a concurrency or sequence key (F-12, F-13) goes back to waiting for a slot of
-- its key, as at enqueue, so a retry cannot run one job over the limit; a discarded job of an ordered
-- key with the BLOCK policy too: admission takes the key's waiting jobs in enqueue order, so the
-- job that blocked the key runs next, and one discarded behind the head waits for its turn (sent
-- straight to available, it ran beside the head and before the jobs ahead of it).
-- stop_requested is cleared: a request made while the job ran (and ignored by its completion)
-- is not carried into its next execution, even one a node of an older version claims.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state = CASE WHEN j.concurrency_key IS NOT NULL
                             AND j.state IN ('completed', 'discarded', 'cancelled')
                        THEN 'waiting' ELSE 'available' END, j.run_at = {{now}}, j.finished_at = NULL,
    j.stop_requested = NULL,
    j.max_attempts = GREATEST(j.max_attempts, j.attempt + 1)
