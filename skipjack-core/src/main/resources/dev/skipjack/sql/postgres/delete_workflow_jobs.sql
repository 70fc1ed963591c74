-- Retention of finished workflows (F-14, F-19), step 2 of 3 in one transaction: their jobs, all
-- terminal (a workflow finishes when its last job ends; a workflow's job is never retried).
-- Index: jobs_workflow_step_idx (workflow_id, ...).
-- Parameters: workflow ids.
DELETE FROM {{jobs}}
WHERE workflow_id = ANY (?::bigint[])
  AND state IN ('completed', 'discarded', 'cancelled')
