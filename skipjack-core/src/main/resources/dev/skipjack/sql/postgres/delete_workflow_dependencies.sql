-- Retention of finished workflows (F-14, F-19), step 1 of 3 in one transaction: their edges.
-- Index: jobs_workflow_step_idx (workflow_id, ...), then the dependencies' primary key (child_id, ...).
-- Parameters: workflow ids.
DELETE FROM {{job_dependencies}}
WHERE child_id IN (SELECT id FROM {{jobs}} WHERE workflow_id = ANY (?::bigint[]))
