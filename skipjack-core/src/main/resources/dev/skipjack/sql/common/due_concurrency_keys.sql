-- Concurrency limits and ordered keys (F-12, F-13): keys with a waiting job that is due, for the
-- admission pass (every node's maintenance, each poll interval). It admits what the admission
-- after an enqueue or a completion did not: jobs enqueued in a caller's transaction, jobs that
-- came due, slots freed by a rescue, an operator or a node that died before admitting.
-- In key order from after the last key the node's previous pass took, so that with more keys
-- than a pass takes every key gets its turn: in the order the rows came, the same keys, full and
-- with a backlog, came first on every pass, and a key behind them (a rate window freed, a job
-- enqueued in a caller's transaction) was never looked at. With up to 500 keys DISTINCT read every
-- due waiting row before too; with more, the order costs reading them all rather than stopping at
-- the 500th key found, once per pass and node.
-- Index: jobs_concurrency_waiting_idx (PostgreSQL, SQLite), jobs_due_idx (state, run_at) (MySQL family).
-- Parameters: the last key of the previous pass ('' to start from the first), how many keys at most.
SELECT DISTINCT concurrency_key
FROM {{jobs}}
WHERE state = 'waiting'
  AND concurrency_key IS NOT NULL
  AND pending_deps = 0
  AND run_at <= {{statement_now}}
  AND concurrency_key > ?
ORDER BY concurrency_key
LIMIT ?
