-- The job holding a unique key (F-10), after insert_one_job.sql found it taken. A locking read
-- (shared), so it sees the latest committed holder even inside a REPEATABLE READ transaction whose
-- snapshot predates it. Empty when the holder finished in between: the enqueue then inserts again.
-- Index: jobs_unique_idx on unique_slot.
-- Parameters: unique key.
SELECT id FROM {{jobs}}
WHERE unique_slot = ?
LOCK IN SHARE MODE
