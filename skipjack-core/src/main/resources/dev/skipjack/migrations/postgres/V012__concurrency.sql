-- Skipjack schema, version 12: concurrency limits and ordered keys (F-12, F-13).
-- A job with a concurrency key is inserted 'waiting' and holds none of its key's slots; it is
-- admitted (made available) by admit_jobs.sql while fewer than concurrency_max jobs of its key hold
-- one. A job holds a slot from its admission until it ends: available, running, retryable and
-- scheduled (snoozed) jobs hold one, and under the BLOCK policy of an ordered key so does a
-- discarded one. Slots are counted from the jobs' states, never kept in a counter, so a killed
-- worker's job gives its slot back by the same rescue that ends or re-queues the job, and nothing
-- can leak (docs/limits-and-ordering.md).
-- concurrency_order: 'priority' admits by priority, due time and id, skipping jobs not yet due
-- (limits); 'fifo' admits in enqueue order and one at a time (ordered keys), a job not yet due
-- holding back the ones after it; 'fifo_block' is 'fifo' whose discarded job keeps the key; 'rate'
-- admits as 'priority' while fewer than concurrency_max jobs of the key started in the last
-- concurrency_period_ms or wait admitted (rate limits), and a failed attempt waits to be admitted again.
ALTER TABLE {{jobs}}
    ADD COLUMN IF NOT EXISTS concurrency_key   text    CHECK (char_length(concurrency_key) BETWEEN 1 AND 255),
    ADD COLUMN IF NOT EXISTS concurrency_max   integer CHECK (concurrency_max >= 1),
    ADD COLUMN IF NOT EXISTS concurrency_order text    CHECK (concurrency_order IN ('priority', 'fifo', 'fifo_block', 'rate')),
    ADD COLUMN IF NOT EXISTS concurrency_period_ms bigint CHECK (concurrency_period_ms BETWEEN 1 AND 86400000),
    -- The three are set together or not at all. NOT VALID: every existing row has none of them.
    ADD CONSTRAINT {{prefix}}jobs_concurrency_chk CHECK (
        (concurrency_key IS NULL) = (concurrency_max IS NULL)
        AND (concurrency_key IS NULL) = (concurrency_order IS NULL)
        AND (concurrency_order = 'rate') = (concurrency_period_ms IS NOT NULL)) NOT VALID;

-- Serves count_concurrency_holders.sql and both waiting_for_key statements: one key's jobs by
-- state, in admission order. Partial: jobs without a key are not in it and cost it nothing.
CREATE INDEX IF NOT EXISTS {{prefix}}jobs_concurrency_idx ON {{jobs}} (concurrency_key, state, priority, run_at, id)
    WHERE concurrency_key IS NOT NULL;

-- Serves count_rate_holders.sql: one key's jobs started since a time.
CREATE INDEX IF NOT EXISTS {{prefix}}jobs_concurrency_started_idx ON {{jobs}} (concurrency_key, attempted_at)
    WHERE concurrency_key IS NOT NULL;

-- Serves due_concurrency_keys.sql: the keys that have a waiting job due.
CREATE INDEX IF NOT EXISTS {{prefix}}jobs_concurrency_waiting_idx ON {{jobs}} (run_at)
    WHERE state = 'waiting' AND concurrency_key IS NOT NULL;

-- A waiting job is not terminal, so a unique job waiting for its key's slot holds its unique key
-- too (F-10: "while a job with that key is not terminal").
DROP INDEX IF EXISTS {{schema}}.{{prefix}}jobs_unique_idx;
CREATE UNIQUE INDEX IF NOT EXISTS {{prefix}}jobs_unique_idx ON {{jobs}} (unique_key)
    WHERE unique_key IS NOT NULL
      AND (state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
           OR (state = 'completed' AND unique_includes_completed));

-- One row per key ever used: the admission of a key's jobs locks it, so two admissions of one key
-- take turns and each counts the slots the other left.
CREATE TABLE IF NOT EXISTS {{concurrency_keys}} (
    concurrency_key text PRIMARY KEY
);
