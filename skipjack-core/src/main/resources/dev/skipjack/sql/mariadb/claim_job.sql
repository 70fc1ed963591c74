-- Claims one given job, if it is available, for a run on the caller's thread (Skipjack.runJob;
-- the skipjack-testing helpers), step 1 of 2: locks and reads it, as claim.sql does for the head
-- of a queue; claim_apply.sql then marks it running (MySqlFamilyDialect.updateReturning).
-- SKIP LOCKED: a job another worker is claiming right now is left to it (no row comes back).
-- Returns the row as it will be once claimed (attempt + 1).
-- Index: primary key.
-- Parameters: job id.
SELECT id, queue, kind, args, priority, attempt + 1, max_attempts,
       TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), created_at),
       TIMESTAMPDIFF(MICROSECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), run_at),
       workflow_id, workflow_step, concurrency_key, trace_context
FROM {{jobs}}
WHERE id = ?
  AND state = 'available'
FOR UPDATE SKIP LOCKED
