-- Workflows (F-14), under the CANCEL policy, in the transaction that ended a job without
-- completing it, step 1 of 2: locks and reads every job that depends on it, directly or through
-- others, and is still waiting (none of them can run: each waits, at least, for the failed job).
-- Index: job_dependencies_parent_idx (parent_id) for each level, then the primary key.
-- Parameters: the failed job's id.
WITH RECURSIVE dependents (id) AS (
    SELECT child_id FROM {{job_dependencies}} WHERE parent_id = ?
    UNION
    SELECT d.child_id FROM {{job_dependencies}} AS d JOIN dependents ON d.parent_id = dependents.id
)
SELECT j.id, j.workflow_id
FROM dependents
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = dependents.id
WHERE j.state = 'waiting'
FOR UPDATE
