-- Skipjack schema, version 16: the keys with a waiting job, in key order. The admission pass
-- (due_concurrency_keys.sql) steps from one such key to the next, one index probe each, instead of
-- reading every due waiting row to find its keys: with a backlog of a million waiting keyed jobs
-- (a rate limit's, say) each pass read the whole backlog: 260 ms of the database's CPU per pass,
-- four passes a second on every node. The pass's check that a key has a due job reads the same index.
-- It replaces jobs_concurrency_waiting_idx (run_at), which only that pass used. On a big table,
-- build it beforehand with CREATE INDEX CONCURRENTLY (same name and definition): this script then
-- finds it and only drops the old one.
CREATE INDEX IF NOT EXISTS {{prefix}}jobs_waiting_key_idx ON {{jobs}} (concurrency_key, run_at)
    WHERE state = 'waiting' AND concurrency_key IS NOT NULL;

DROP INDEX IF EXISTS {{schema}}.{{prefix}}jobs_concurrency_waiting_idx;
