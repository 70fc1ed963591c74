-- Workflows (F-14): a job's parents, by step name, with the output each recorded (null: none), read
-- when the job starts so its handler can use them.
-- Index: primary key of the dependencies (child_id, parent_id), then the jobs' primary key.
-- Parameters: the job's id.
SELECT p.workflow_step, p.output
FROM {{job_dependencies}} AS d
JOIN {{jobs}} AS p ON p.id = d.parent_id
WHERE d.child_id = ?
