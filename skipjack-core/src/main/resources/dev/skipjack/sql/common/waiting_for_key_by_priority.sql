-- Concurrency limits (F-12), after count_concurrency_holders.sql: the key's waiting jobs that are
-- due, in the claim's order (priority, due time, id), with the limit and (rate limits) the period
-- the first in line asks for. A job not yet due waits without holding back
-- the others. pending_deps = 0 leaves out a workflow's job still waiting for its parents.
-- Index: jobs_concurrency_idx (concurrency_key, state, priority, run_at, id).
-- Parameters: key, how many at most.
SELECT id, queue, concurrency_max, 1, concurrency_period_ms
FROM {{jobs}}
WHERE concurrency_key = ?
  AND state = 'waiting'
  AND pending_deps = 0
  AND run_at <= {{statement_now}}
ORDER BY priority, run_at, id
LIMIT ?
