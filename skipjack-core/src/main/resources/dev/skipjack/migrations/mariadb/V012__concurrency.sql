-- Skipjack schema, version 12: concurrency limits and ordered keys (F-12, F-13).
-- As the PostgreSQL migration says: a keyed job is inserted 'waiting' and admitted while fewer than
-- concurrency_max jobs of its key hold a slot; slots are counted from states, never kept in a
-- counter (docs/limits-and-ordering.md). unique_slot now includes 'waiting': a unique job waiting
-- for its key's slot is not terminal, so it holds its unique key (this rebuilds the table, as
-- changing a stored generated column does).
ALTER TABLE {{jobs}}
    ADD COLUMN concurrency_key   VARCHAR(255),
    ADD COLUMN concurrency_max   INT,
    ADD COLUMN concurrency_order VARCHAR(16),
    ADD COLUMN concurrency_period_ms BIGINT,
    ADD CONSTRAINT {{prefix}}jobs_concurrency_key_chk CHECK (char_length(concurrency_key) BETWEEN 1 AND 255),
    ADD CONSTRAINT {{prefix}}jobs_concurrency_max_chk CHECK (concurrency_max >= 1),
    ADD CONSTRAINT {{prefix}}jobs_concurrency_order_chk CHECK (concurrency_order IN ('priority', 'fifo', 'fifo_block', 'rate')),
    ADD CONSTRAINT {{prefix}}jobs_concurrency_period_chk CHECK (concurrency_period_ms BETWEEN 1 AND 86400000),
    ADD CONSTRAINT {{prefix}}jobs_concurrency_chk CHECK (
        (concurrency_key IS NULL) = (concurrency_max IS NULL)
        AND (concurrency_key IS NULL) = (concurrency_order IS NULL)
        AND (concurrency_order = 'rate') = (concurrency_period_ms IS NOT NULL)),
    MODIFY COLUMN unique_slot VARCHAR(512) AS (
        CASE WHEN state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
                  OR (state = 'completed' AND unique_includes_completed)
             THEN unique_key END) STORED,
    -- Serves count_concurrency_holders.sql and both waiting_for_key statements. Waiting jobs due
    -- (due_concurrency_keys.sql) are found by jobs_due_idx (state, run_at).
    ADD KEY {{prefix}}jobs_concurrency_idx (concurrency_key, state, priority, run_at, id),
    -- Serves count_rate_holders.sql: one key's jobs started since a time.
    ADD KEY {{prefix}}jobs_concurrency_started_idx (concurrency_key, attempted_at);

-- One row per key ever used: the admission of a key's jobs locks it.
CREATE TABLE IF NOT EXISTS {{concurrency_keys}} (
    concurrency_key VARCHAR(255) NOT NULL PRIMARY KEY
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
