-- Skipjack schema, version 5: retention (F-19).
-- Serves prune_jobs.sql: finished jobs of one state in finish order, so each pruning batch reads
-- exactly the rows it deletes. Partial: live jobs are not in it.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}jobs_finished_idx ON "{{prefix}}jobs" (state, finished_at)
    WHERE state IN ('completed', 'discarded', 'cancelled');
