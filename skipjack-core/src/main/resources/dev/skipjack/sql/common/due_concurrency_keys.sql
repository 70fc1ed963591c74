-- Concurrency limits and ordered keys (F-12, F-13): keys with a waiting job that is due, for the
-- admission pass (every node's maintenance, each poll interval). It admits what the admission
-- after an enqueue or a completion did not: jobs enqueued in a caller's transaction, jobs that
-- came due, slots freed by a rescue, an operator or a node that died before admitting.
-- Index: jobs_concurrency_waiting_idx (PostgreSQL, SQLite), jobs_due_idx (state, run_at) (MySQL family).
-- Parameters: how many keys at most.
SELECT DISTINCT concurrency_key
FROM {{jobs}}
WHERE state = 'waiting'
  AND concurrency_key IS NOT NULL
  AND pending_deps = 0
  AND run_at <= {{statement_now}}
LIMIT ?
