-- Skipjack schema, version 16: the keys with a waiting job, in key order, for the admission
-- pass's step from one key to the next (as the PostgreSQL migration says); until now the pass read
-- every due waiting row through jobs_due_idx (state, run_at).
-- InnoDB has no partial index: waiting_key is the job's key while it waits and NULL otherwise (a
-- VIRTUAL column, so adding it rewrites nothing), and the index is on it. A claim or a completion
-- leaves it NULL and unchanged, so it adds no index work to a job's path; only entering or leaving
-- 'waiting' does. An index on (state, concurrency_key, run_at) would be rewritten at every state
-- change of every job, keyed or not. InnoDB builds the index in place, without blocking writes.
-- Run it once: MySQL has no ADD KEY IF NOT EXISTS (an index a DBA built first makes it fail with
-- error 1061; build it under another name, or not at all).
ALTER TABLE {{jobs}}
    ADD COLUMN waiting_key VARCHAR(255) AS (CASE WHEN state = 'waiting' THEN concurrency_key END) VIRTUAL,
    ADD KEY {{prefix}}jobs_waiting_key_idx (waiting_key, run_at)
