-- Claims up to N available jobs of one queue (F-1) and returns them, in one statement.
-- SQLite has no row locks and no SKIP LOCKED: the statement runs under the database's only write
-- lock (an auto-commit UPDATE takes it before it reads), so the subquery and the update see the
-- same jobs and no other claimer can run in between; state = 'available' is checked again on the
-- row all the same. RETURNING gives the rows in no particular order: JobClaimer sorts them into
-- claim order. Times come back as epoch microseconds, as stored.
-- Numbered parameters keep PostgreSQL's bind order (choosing ones first) although SET comes first.
-- workflow_id and workflow_step (null outside workflows) tell the execution to read its parents'
-- outputs and the completion to advance the workflow (F-14); concurrency_key (F-12, F-13) tells the
-- completion to admit the key's next job; trace_context (V014) is what the enqueuing client's
-- JobInterceptors stored, for the handler's run. Plain jobs pay four null columns.
-- stop_requested is reset: an operator's request to stop a running job belongs to the execution
-- it was made for, never to the next one.
-- Index: jobs_claim_idx (queue, priority, run_at) WHERE state = 'available', read in order (no
-- temporary b-tree for the ORDER BY; ClaimPlanTest).
-- Parameters: ?1 queue, ?2 kinds this claimer must leave alone (JSON array), ?3 limit,
--             ?4 worker id, ?5 lease in milliseconds.
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
          AND kind NOT IN (SELECT value FROM json_each(?2))
        ORDER BY priority, run_at, id
        LIMIT ?3)
  AND state = 'available'
RETURNING id, queue, kind, args, priority, attempt, max_attempts, created_at, run_at, workflow_id, workflow_step, concurrency_key, trace_context
