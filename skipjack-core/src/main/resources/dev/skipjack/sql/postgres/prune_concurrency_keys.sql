-- Retention (leader only), after the jobs: deletes the lock rows of concurrency keys (F-12, F-13)
-- that no job refers to any more, in any state. The row holds no count: it only makes a key's
-- admissions take turns, and the next admission of a key whose row is gone inserts it again
-- (lock_concurrency_key.sql), so a row deleted beside an enqueue of its key costs nothing.
-- Index: primary key; jobs_concurrency_idx (concurrency_key, ...) for each key's jobs.
-- Parameters: how many at most.
DELETE FROM {{concurrency_keys}}
WHERE concurrency_key IN (
    SELECT k.concurrency_key
    FROM {{concurrency_keys}} AS k
    WHERE NOT EXISTS (SELECT 1 FROM {{jobs}} AS j WHERE j.concurrency_key = k.concurrency_key)
    LIMIT ?)
