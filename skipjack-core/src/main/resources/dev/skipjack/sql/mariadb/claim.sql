-- Claims up to N available jobs of one queue (F-1), step 1 of 2: locks and reads them.
-- MySQL and MariaDB have no UPDATE ... RETURNING, and MySQL refuses an UPDATE whose subquery reads
-- the same table with LIMIT, so the claim is this SELECT and then claim_apply.sql by primary key,
-- in one short READ COMMITTED transaction (MySqlFamilyDialect.updateReturning): no gap locks, so
-- enqueues never wait on a claimer. SKIP LOCKED: concurrent claimers never wait on each other.
-- Returns the rows as they will be once claimed (attempt + 1): they stay locked until the commit.
-- InnoDB locks every index record it scans, so the scan must be the claim order itself: FORCE
-- INDEX keeps the optimizer off a table scan on a small table (which would lock every row), and
-- the index's columns after (queue, state) are the ORDER BY, so no filesort (ClaimPlanTest).
-- Times come back as epoch microseconds, by arithmetic on the UTC DATETIME.
-- workflow_id and workflow_step (null outside workflows) tell the execution to read its parents'
-- outputs and the completion to advance the workflow (F-14); concurrency_key (F-12, F-13) tells the
-- completion to admit the key's next job; trace_context (V014) is what the enqueuing client's
-- JobInterceptors stored, for the handler's run. Plain jobs pay four null columns.
-- Index: jobs_claim_idx (queue, state, priority, run_at, id).
-- Parameters: queue, kinds this claimer must leave alone (JSON array), limit.
SELECT id, queue, kind, args, priority, attempt + 1, max_attempts,
       TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), created_at),
       TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), run_at),
       workflow_id, workflow_step, concurrency_key, trace_context
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_claim_idx)
WHERE queue = ?
  AND state = 'available'
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(kind))
ORDER BY priority, run_at, id
LIMIT ?
FOR UPDATE SKIP LOCKED
