-- Skipjack schema, version 6: unique jobs (F-10).
-- unique_key is the key EnqueueOptions.withUnique computed (kind, then args, a given key, queue or
-- period as chosen; up to 512 characters); unique_includes_completed says whether a completed job
-- keeps holding it.
-- This family has no partial indexes: unique_slot, a stored generated column, is the key while the
-- job holds it and NULL otherwise, and NULLs never collide in a unique index. A job holds its key
-- in every unfinished state (so no worker transition can ever collide with it), and when completed
-- if it asked for it. insert_one_job.sql relies on the index (a duplicate insert fails with
-- 1062 and nothing else); find_unique_job.sql and retry_jobs.sql read unique_slot.
-- One ALTER TABLE: it commits by itself, and the migration is recorded right after it.
ALTER TABLE {{jobs}}
    MODIFY COLUMN unique_key VARCHAR(512),
    ADD COLUMN unique_includes_completed BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN unique_slot VARCHAR(512) AS (
        CASE WHEN state IN ('scheduled', 'available', 'running', 'retryable')
                  OR (state = 'completed' AND unique_includes_completed)
             THEN unique_key END) STORED,
    ADD UNIQUE KEY {{prefix}}jobs_unique_idx (unique_slot);
