-- One page of jobs matching an operator's filter, newest first, by keyset on id (never OFFSET).
-- Every filter is optional (a null parameter switches it off); each parameter is bound twice.
-- List filters are JSON arrays; the args filter is JSON containment (JSON_CONTAINS).
-- Index: primary key, walked backwards from the cursor; the other filters are applied to the rows
-- it yields.
-- Parameters: queues, kinds, states (JSON arrays or null), created from, created before (DATETIME
--             in UTC or null), args containment (JSON text or null), tag (or null), cursor id (or null), limit.
SELECT id, queue, kind, args, priority, state, run_at, attempt, max_attempts, errors,
       claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, tags, metadata,
       workflow_id, workflow_step, output, concurrency_key,
       CASE WHEN state = 'running' THEN stop_requested END
FROM {{jobs}}
WHERE (? IS NULL OR JSON_CONTAINS(?, JSON_QUOTE(queue)))
  AND (? IS NULL OR JSON_CONTAINS(?, JSON_QUOTE(kind)))
  AND (? IS NULL OR JSON_CONTAINS(?, JSON_QUOTE(state)))
  AND (? IS NULL OR created_at >= ?)
  AND (? IS NULL OR created_at < ?)
  AND (? IS NULL OR JSON_CONTAINS(args, ?))
  AND (? IS NULL OR JSON_CONTAINS(tags, JSON_QUOTE(?)))
  AND (? IS NULL OR id < ?)
ORDER BY id DESC
LIMIT ?
