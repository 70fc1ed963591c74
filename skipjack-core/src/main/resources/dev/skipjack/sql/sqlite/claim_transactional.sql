-- Claims up to N available jobs of transactional kinds inside the caller's open transaction (F-4).
-- The transaction holds SQLite's only write lock from its BEGIN IMMEDIATE to its end, so the jobs'
-- 'running' state stays uncommitted, and every other writer waits, until the job's transaction
-- ends: if the worker dies, the transaction rolls back and the jobs are available again at once.
-- Same index and plan as claim.sql.
-- workflow_id and workflow_step (null outside workflows) tell the execution to read its parents'
-- outputs and the completion to advance the workflow (F-14); concurrency_key (F-12, F-13) tells the
-- completion to admit the key's next job; trace_context (V014) is what the enqueuing client's
-- JobInterceptors stored, for the handler's run. Plain jobs pay four null columns.
-- stop_requested is reset: an operator's request to stop a running job belongs to the execution
-- it was made for, never to the next one.
-- Index: jobs_claim_idx (queue, priority, run_at) WHERE state = 'available'.
-- Parameters: ?1 queue, ?2 transactional kinds (JSON array), ?3 limit, ?4 worker id,
--             ?5 lease in milliseconds.
UPDATE {{jobs}}
SET state        = 'running',
    attempt      = attempt + 1,
    attempted_at = {{now}},
    claimed_by   = ?4,
    lease_until  = {{now}} + ?5 * 1000,
    stop_requested = NULL
WHERE id IN (
        SELECT id
        FROM {{jobs}}
        WHERE state = 'available'
          AND queue = ?1
          AND kind IN (SELECT value FROM json_each(?2))
        ORDER BY priority, run_at, id
        LIMIT ?3)
  AND state = 'available'
RETURNING id, queue, kind, args, priority, attempt, max_attempts, created_at, run_at, workflow_id, workflow_step, concurrency_key, trace_context
