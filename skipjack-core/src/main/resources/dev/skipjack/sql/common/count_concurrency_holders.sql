-- Concurrency limits and ordered keys (F-12, F-13), after lock_concurrency_key.sql in the same
-- transaction: the jobs of the key holding a slot. A job holds one from its admission until it
-- ends (available, running, retryable, or snoozed to scheduled); a discarded job of an ordered
-- key under the BLOCK policy holds it until an operator retries or deletes it. Counted from
-- states, never kept in a counter: a rescued or ended job gives its slot back with its state.
-- Index: jobs_concurrency_idx (concurrency_key, state, ...).
-- Parameters: key.
SELECT count(*)
FROM {{jobs}}
WHERE concurrency_key = ?
  AND (state IN ('available', 'running', 'retryable', 'scheduled')
       OR (state = 'discarded' AND concurrency_order = 'fifo_block'))
