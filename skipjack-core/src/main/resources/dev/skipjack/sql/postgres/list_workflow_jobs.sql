-- The jobs of one workflow, for inspection (F-14). Same columns as find_job.sql.
-- Index: jobs_workflow_step_idx (workflow_id, workflow_step).
-- Parameters: workflow id.
SELECT id, queue, kind, args::text, priority, state, run_at, attempt, max_attempts, errors::text,
       claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, array_to_json(tags)::text, metadata::text,
       workflow_id, workflow_step, output::text, concurrency_key,
       CASE WHEN state = 'running' THEN stop_requested END
FROM {{jobs}}
WHERE workflow_id = ?
ORDER BY id
