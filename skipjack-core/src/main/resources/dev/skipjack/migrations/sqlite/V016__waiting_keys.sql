-- Skipjack schema, version 16: the keys with a waiting job, in key order, for the admission
-- pass's step from one key to the next (as the PostgreSQL migration says). It replaces
-- jobs_concurrency_waiting_idx (run_at), which only that pass used.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}jobs_waiting_key_idx ON "{{prefix}}jobs" (concurrency_key, run_at)
    WHERE state = 'waiting' AND concurrency_key IS NOT NULL;

DROP INDEX IF EXISTS {{schema}}.{{prefix}}jobs_concurrency_waiting_idx;
