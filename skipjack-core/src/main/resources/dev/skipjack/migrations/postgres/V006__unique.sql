-- Skipjack schema, version 6: unique jobs (F-10).
-- unique_key is the key EnqueueOptions.withUnique computed (kind, then args, a given key, queue or
-- period as chosen); unique_includes_completed says whether a completed job keeps holding it.
ALTER TABLE {{jobs}} ADD COLUMN unique_includes_completed boolean NOT NULL DEFAULT false;

-- At most one job per key among the jobs that hold their key: every unfinished state (so no worker
-- transition can ever collide with it: a job keeps its key from enqueue to finish), and completed
-- when the job asked for it. insert_one_job.sql relies on it (ON CONFLICT DO NOTHING), so no
-- read-then-insert race exists; find_unique_job.sql and retry_jobs.sql read it with the same
-- predicate. Jobs without a key are not in it.
CREATE UNIQUE INDEX IF NOT EXISTS {{prefix}}jobs_unique_idx ON {{jobs}} (unique_key)
    WHERE unique_key IS NOT NULL
      AND (state IN ('scheduled', 'available', 'running', 'retryable')
           OR (state = 'completed' AND unique_includes_completed));
