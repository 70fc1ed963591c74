-- Skipjack schema, version 6: unique jobs (F-10).
-- unique_key is the key EnqueueOptions.withUnique computed (kind, then args, a given key, queue or
-- period as chosen); unique_includes_completed (0 or 1) says whether a completed job keeps holding it.
ALTER TABLE {{jobs}} ADD COLUMN unique_includes_completed INTEGER NOT NULL DEFAULT 0
    CHECK (unique_includes_completed IN (0, 1));

-- At most one job per key among the jobs that hold their key: every unfinished state (so no worker
-- transition can ever collide with it), and completed when the job asked for it.
-- insert_one_job.sql relies on it (ON CONFLICT DO NOTHING); find_unique_job.sql and
-- retry_jobs.sql read it with the same predicate.
CREATE UNIQUE INDEX IF NOT EXISTS {{schema}}.{{prefix}}jobs_unique_idx ON "{{prefix}}jobs" (unique_key)
    WHERE unique_key IS NOT NULL
      AND (state IN ('scheduled', 'available', 'running', 'retryable')
           OR (state = 'completed' AND unique_includes_completed = 1));
