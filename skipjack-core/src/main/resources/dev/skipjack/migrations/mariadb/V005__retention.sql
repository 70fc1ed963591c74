-- Skipjack schema, version 5: retention (F-19).
-- Serves prune_jobs.sql: jobs of one state in finish order, so each pruning batch reads exactly
-- the rows it deletes. Without partial indexes live jobs are in it too, with a NULL finish time,
-- which sorts before every range prune_jobs.sql reads.
-- Plain CREATE INDEX (MySQL has no IF NOT EXISTS for indexes): the migration is recorded right
-- after it, so it runs once.
CREATE INDEX {{prefix}}jobs_finished_idx ON {{jobs}} (state, finished_at);
