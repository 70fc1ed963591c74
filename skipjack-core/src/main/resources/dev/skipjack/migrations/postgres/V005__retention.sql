-- Skipjack schema, version 5: retention (F-19).
-- Serves prune_jobs.sql: terminal jobs of one state in finish order, so each pruning batch reads
-- exactly the rows it deletes and no live job is ever in this index. IF NOT EXISTS lets an
-- operator build it beforehand with CREATE INDEX CONCURRENTLY on a big table (same name and
-- definition) instead of holding a write lock while this migration builds it.
CREATE INDEX IF NOT EXISTS {{prefix}}jobs_finished_idx ON {{jobs}} (state, finished_at)
    WHERE state IN ('completed', 'discarded', 'cancelled');
