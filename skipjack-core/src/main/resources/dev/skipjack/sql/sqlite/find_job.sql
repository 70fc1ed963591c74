-- One job by id, for inspection. Same columns as list_jobs.sql.
-- Index: primary key.
SELECT id, queue, kind, args, priority, state, run_at, attempt, max_attempts, errors,
       claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, tags, metadata,
       workflow_id, workflow_step, output, concurrency_key,
       CASE WHEN state = 'running' THEN stop_requested END
FROM {{jobs}}
WHERE id = ?
