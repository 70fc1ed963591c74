-- Claims up to N available jobs of transactional kinds inside the caller's open transaction (F-4),
-- step 1 of 2: locks and reads them. The rows stay locked, and their 'running' state uncommitted,
-- until the job's transaction ends: if the worker dies, the transaction rolls back and the jobs
-- are available again at once. Same index and plan as claim.sql.
-- workflow_id and workflow_step (null outside workflows) tell the execution to read its parents'
-- outputs and the completion to advance the workflow (F-14); concurrency_key (F-12, F-13) tells the
-- completion to admit the key's next job; trace_context (V014) is what the enqueuing client's
-- JobInterceptors stored, for the handler's run. Plain jobs pay four null columns.
-- Index: jobs_claim_idx (queue, state, priority, run_at, id).
-- Parameters: queue, transactional kinds (JSON array), limit.
SELECT id, queue, kind, args, priority, attempt + 1, max_attempts,
       TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), created_at),
       TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), run_at),
       workflow_id, workflow_step, concurrency_key, trace_context
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_claim_idx)
WHERE queue = ?
  AND state = 'available'
  AND JSON_CONTAINS(?, JSON_QUOTE(kind))
ORDER BY priority, run_at, id
LIMIT ?
FOR UPDATE SKIP LOCKED
