-- One job by id, for inspection.
-- Index: primary key.
SELECT id, queue, kind, args::text, priority, state, run_at, attempt, max_attempts, errors::text,
       claimed_by, lease_until, created_at, attempted_at, finished_at
FROM {{jobs}}
WHERE id = ?
