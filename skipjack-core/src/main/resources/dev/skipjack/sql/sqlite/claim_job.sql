-- Claims one given job, if it is available, for a run on the caller's thread (Skipjack.runJob;
-- the skipjack-testing helpers): the same marking as claim.sql, for one id instead of the head of
-- a queue. Runs under the database's only write lock, like every SQLite claim.
-- stop_requested is reset: an operator's request to stop a running job belongs to the execution
-- it was made for, never to the next one.
-- Index: primary key.
-- Parameters: ?1 job id, ?2 worker id, ?3 lease in milliseconds.
UPDATE {{jobs}}
SET state        = 'running',
    attempt      = attempt + 1,
    attempted_at = {{now}},
    claimed_by   = ?2,
    lease_until  = {{now}} + ?3 * 1000,
    stop_requested = NULL
WHERE id = ?1
  AND state = 'available'
RETURNING id, queue, kind, args, priority, attempt, max_attempts, created_at, run_at, workflow_id, workflow_step, concurrency_key, trace_context
