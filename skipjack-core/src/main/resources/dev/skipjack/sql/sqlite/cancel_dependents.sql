-- Workflows (F-14), under the CANCEL policy, in the transaction that ended a job without
-- completing it: cancels every job that depends on it, directly or through others, and is still
-- waiting (none of them can run: each waits, at least, for the failed job). Records why.
-- Returns the jobs cancelled, so the workflow counts them as finished.
-- Index: job_dependencies_parent_idx (parent_id) for each level, then the primary key.
-- Parameters: ?1 the failed job's id, ?2 the message to record.
UPDATE {{jobs}}
SET state       = 'cancelled',
    finished_at = {{statement_now}},
    errors      = json_insert(errors, '$[#]', json_object(
                      'at', strftime('%Y-%m-%dT%H:%M:%fZ', {{statement_now}} / 1000000.0, 'unixepoch'),
                      'attempt', attempt,
                      'class', 'DependencyFailed',
                      'message', ?2))
WHERE id IN (
        WITH RECURSIVE dependents (id) AS (
            SELECT child_id FROM {{job_dependencies}} WHERE parent_id = ?1
            UNION
            SELECT d.child_id FROM {{job_dependencies}} AS d JOIN dependents ON d.parent_id = dependents.id
        )
        SELECT id FROM dependents)
  AND state = 'waiting'
RETURNING id, workflow_id
