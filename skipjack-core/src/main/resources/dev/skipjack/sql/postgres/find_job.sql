-- One job by id, for inspection.
-- Index: primary key.
SELECT id, queue, kind, args::text, priority, state, run_at, attempt, max_attempts, errors::text,
       claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, array_to_json(tags)::text, metadata::text,
       workflow_id, workflow_step, output::text, concurrency_key,
       CASE WHEN state = 'running' THEN stop_requested END
FROM {{jobs}}
WHERE id = ?
