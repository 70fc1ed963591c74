-- Retention of finished workflows (F-14, F-19), step 1 of 3 in one transaction: their edges.
-- Driven by the id list: the workflows' jobs, then their edges by primary key.
-- Index: jobs_workflow_step_idx (workflow_id, ...), then the dependencies' primary key (child_id, ...).
-- Parameters: workflow ids (JSON array).
DELETE d
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS w
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX ({{prefix}}jobs_workflow_step_idx) ON j.workflow_id = w.id
STRAIGHT_JOIN {{job_dependencies}} AS d FORCE INDEX (PRIMARY) ON d.child_id = j.id
