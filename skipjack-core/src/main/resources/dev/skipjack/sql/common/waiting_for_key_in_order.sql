-- Ordered keys (F-13), after count_concurrency_holders.sql: the key's waiting jobs in enqueue
-- order (id), with whether each is due (1) or not yet (0). Only the first is ever admitted, and
-- only when it is due: a job not yet due holds back the ones enqueued after it, so order is kept.
-- Index: jobs_concurrency_idx (concurrency_key, state, ...).
-- Parameters: key, how many at most.
SELECT id, queue, concurrency_max, CASE WHEN run_at <= {{statement_now}} THEN 1 ELSE 0 END, concurrency_period_ms
FROM {{jobs}}
WHERE concurrency_key = ?
  AND state = 'waiting'
  AND pending_deps = 0
ORDER BY id
LIMIT ?
