-- One page of jobs matching an operator's filter, newest first, by keyset on id (never OFFSET):
-- the next page starts below the smallest id of this one, so page 1,000 costs what page 1 does.
-- Every filter is optional (a null parameter switches it off); each parameter is bound twice.
-- Index: primary key, walked backwards from the cursor; the other filters are applied to the rows
-- it yields. A selective args filter on a large table reads many rows: add a GIN index on args
-- (jsonb_path_ops) if you search by args often (see docs/operating.md).
-- Parameters: queues, kinds, states (text[] or null), created from, created before (timestamptz or
--             null), args containment (jsonb text or null), tag (or null), cursor id (or null), limit.
SELECT id, queue, kind, args::text, priority, state, run_at, attempt, max_attempts, errors::text,
       claimed_by, lease_until, created_at, attempted_at, finished_at, unique_key, array_to_json(tags)::text, metadata::text,
       workflow_id, workflow_step, output::text, concurrency_key,
       CASE WHEN state = 'running' THEN stop_requested END
FROM {{jobs}}
WHERE (?::text[] IS NULL OR queue = ANY (?::text[]))
  AND (?::text[] IS NULL OR kind = ANY (?::text[]))
  AND (?::text[] IS NULL OR state = ANY (?::text[]))
  AND (?::timestamptz IS NULL OR created_at >= ?::timestamptz)
  AND (?::timestamptz IS NULL OR created_at < ?::timestamptz)
  AND (?::jsonb IS NULL OR args @> ?::jsonb)
  AND (?::text IS NULL OR ?::text = ANY (tags))
  AND (?::bigint IS NULL OR id < ?::bigint)
ORDER BY id DESC
LIMIT ?
