-- Concurrency limits and ordered keys (F-12, F-13) for operators (SkipjackAdmin.concurrencyKeys,
-- skipjack keys, the dashboard): per key with a job that has not ended (or a discarded one that
-- blocks its ordered key), the largest limit its jobs ask for, its order, how many jobs hold a
-- slot, how many of them run, how many wait, the oldest holder (what an ordered key waits on), and
-- a rate limit's period.
-- Index: jobs_concurrency_idx (concurrency_key, state, ...).
-- Parameters: how many keys at most.
SELECT concurrency_key,
       max(concurrency_max),
       max(concurrency_order),
       sum(CASE WHEN state IN ('available', 'running', 'retryable', 'scheduled')
                     OR (state = 'discarded' AND concurrency_order = 'fifo_block') THEN 1 ELSE 0 END),
       sum(CASE WHEN state = 'running' THEN 1 ELSE 0 END),
       sum(CASE WHEN state = 'waiting' THEN 1 ELSE 0 END),
       min(CASE WHEN state IN ('available', 'running', 'retryable', 'scheduled')
                     OR (state = 'discarded' AND concurrency_order = 'fifo_block') THEN id END),
       max(concurrency_period_ms)
FROM {{jobs}}
WHERE concurrency_key IS NOT NULL
  AND (state NOT IN ('completed', 'discarded', 'cancelled')
       OR (state = 'discarded' AND concurrency_order = 'fifo_block'))
GROUP BY concurrency_key
ORDER BY concurrency_key
LIMIT ?
