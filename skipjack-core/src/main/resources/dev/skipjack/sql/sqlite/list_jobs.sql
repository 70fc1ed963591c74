-- One page of jobs matching an operator's filter, newest first, by keyset on id (never OFFSET).
-- Every filter is optional (a null parameter switches it off); each parameter is bound twice.
-- List filters are JSON arrays. SQLite has no JSON containment: the args filter matches a job
-- whose args have every top-level key of the filter with an equal value (nested objects and
-- arrays compare as whole JSON values, not by containment; docs/backends.md).
-- Index: primary key, walked backwards from the cursor; the other filters are applied to the rows
-- it yields.
-- Parameters: queues, kinds, states (JSON arrays or null), created from, created before (epoch
--             microseconds or null), args filter (JSON object text or null), tag (or null), cursor id (or null), limit.
SELECT id, queue, kind, args, priority, state, run_at, attempt, max_attempts, errors,
       claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, tags, metadata,
       workflow_id, workflow_step, output, concurrency_key,
       CASE WHEN state = 'running' THEN stop_requested END
FROM {{jobs}}
WHERE (? IS NULL OR queue IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR kind IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR state IN (SELECT value FROM json_each(?)))
  AND (? IS NULL OR created_at >= ?)
  AND (? IS NULL OR created_at < ?)
  AND (? IS NULL OR NOT EXISTS (
          SELECT 1 FROM json_each(?) AS f
          WHERE f.value IS NOT (SELECT a.value FROM json_each(args) AS a WHERE a.key = f.key)))
  AND (? IS NULL OR EXISTS (SELECT 1 FROM json_each(tags) AS t WHERE t.value = ?))
  AND (? IS NULL OR id < ?)
ORDER BY id DESC
LIMIT ?
