-- Skipjack schema, version 12: concurrency limits and ordered keys (F-12, F-13).
-- As the PostgreSQL migration says: a keyed job is inserted 'waiting' and admitted while fewer than
-- concurrency_max jobs of its key hold a slot; slots are counted from states, never kept in a
-- counter (docs/limits-and-ordering.md). Columns are added, never the table rebuilt.
ALTER TABLE {{jobs}} ADD COLUMN concurrency_key TEXT
    CHECK (concurrency_key IS NULL OR length(concurrency_key) BETWEEN 1 AND 255);
ALTER TABLE {{jobs}} ADD COLUMN concurrency_max INTEGER
    CHECK (concurrency_max IS NULL OR concurrency_max >= 1);
ALTER TABLE {{jobs}} ADD COLUMN concurrency_order TEXT
    CHECK (concurrency_order IS NULL OR concurrency_order IN ('priority', 'fifo', 'fifo_block', 'rate'));
ALTER TABLE {{jobs}} ADD COLUMN concurrency_period_ms INTEGER
    CHECK (concurrency_period_ms IS NULL OR concurrency_period_ms BETWEEN 1 AND 86400000);

CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}jobs_concurrency_idx ON "{{prefix}}jobs" (concurrency_key, state, priority, run_at, id)
    WHERE concurrency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}jobs_concurrency_started_idx ON "{{prefix}}jobs" (concurrency_key, attempted_at)
    WHERE concurrency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}jobs_concurrency_waiting_idx ON "{{prefix}}jobs" (run_at)
    WHERE state = 'waiting' AND concurrency_key IS NOT NULL;

-- A unique job waiting for its key's slot is not terminal, so it holds its unique key.
DROP INDEX IF EXISTS {{schema}}.{{prefix}}jobs_unique_idx;
CREATE UNIQUE INDEX {{schema}}.{{prefix}}jobs_unique_idx ON "{{prefix}}jobs" (unique_key)
    WHERE unique_key IS NOT NULL
      AND (state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
           OR (state = 'completed' AND unique_includes_completed = 1));

-- One row per key ever used. Admissions take turns by SQLite's one write lock already; the table
-- is kept so the statements are the same on every backend.
CREATE TABLE IF NOT EXISTS {{concurrency_keys}} (
    concurrency_key TEXT PRIMARY KEY
);
