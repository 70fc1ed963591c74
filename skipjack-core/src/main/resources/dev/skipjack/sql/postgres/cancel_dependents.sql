-- Workflows (F-14), under the CANCEL policy, in the transaction that ended a job without
-- completing it: cancels every job that depends on it, directly or through others, and is still
-- waiting (none of them can run: each waits, at least, for the failed job). Records why.
-- Returns the jobs cancelled, so the workflow counts them as finished.
-- Index: job_dependencies_parent_idx (parent_id) for each level, then the primary key.
-- Parameters: the failed job's id, the message to record.
WITH RECURSIVE dependents (id) AS (
    SELECT child_id FROM {{job_dependencies}} WHERE parent_id = ?
    UNION
    SELECT d.child_id FROM {{job_dependencies}} AS d JOIN dependents ON d.parent_id = dependents.id
)
UPDATE {{jobs}} AS j
SET state       = 'cancelled',
    finished_at = {{statement_now}},
    errors      = j.errors || jsonb_build_array(jsonb_build_object(
                      'at', {{statement_now}},
                      'attempt', j.attempt,
                      'class', 'DependencyFailed',
                      'message', ?::text))
WHERE j.id IN (SELECT id FROM dependents)
  AND j.state = 'waiting'
RETURNING j.id, j.workflow_id
