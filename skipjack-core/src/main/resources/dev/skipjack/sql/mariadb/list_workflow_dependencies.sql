-- The edges of one workflow, for inspection (F-14): child, parent, and whether the parent's end
-- satisfied it yet.
-- Index: jobs_workflow_step_idx (workflow_id, ...), then the dependencies' primary key (child_id, ...).
-- Parameters: workflow id.
SELECT d.child_id, d.parent_id, d.satisfied
FROM {{jobs}} AS j
JOIN {{job_dependencies}} AS d ON d.child_id = j.id
WHERE j.workflow_id = ?
