-- Retention of finished workflows (F-14, F-19), step 2 of 3 in one transaction: their jobs, all
-- terminal (a workflow finishes when its last job ends; a workflow's job is never retried).
-- Driven by the id list.
-- Index: jobs_workflow_step_idx (workflow_id, ...).
-- Parameters: workflow ids (JSON array).
DELETE j
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS w
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX ({{prefix}}jobs_workflow_step_idx) ON j.workflow_id = w.id
WHERE j.state IN ('completed', 'discarded', 'cancelled')
