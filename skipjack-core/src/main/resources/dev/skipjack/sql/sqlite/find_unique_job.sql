-- The job holding a unique key (F-10), after insert_one_job.sql found it taken. The predicate is
-- jobs_unique_idx's, so the lookup reads that index. Empty when the holder finished in between:
-- the enqueue then inserts again.
-- Index: jobs_unique_idx.
-- Parameters: unique key.
SELECT id FROM {{jobs}}
WHERE unique_key = ?
  AND (state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
       OR (state = 'completed' AND unique_includes_completed = 1))
