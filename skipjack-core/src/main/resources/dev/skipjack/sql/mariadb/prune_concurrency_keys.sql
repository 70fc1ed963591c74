-- Retention (leader only), after the jobs: deletes the lock rows of concurrency keys (F-12, F-13)
-- that no job refers to any more, in any state. The row holds no count: it only makes a key's
-- admissions take turns, and the next admission of a key whose row is gone inserts it again
-- (lock_concurrency_key.sql), so a row deleted beside an enqueue of its key costs nothing.
-- The keys to delete come from a derived table, which the MySQL family materializes first: a
-- DELETE may not read its own table in a subquery, and LIMIT is refused inside IN (...).
-- Index: primary key; jobs_concurrency_idx (concurrency_key, ...) for each key's jobs.
-- Parameters: how many at most.
DELETE k FROM {{concurrency_keys}} AS k
JOIN (SELECT c.concurrency_key
      FROM {{concurrency_keys}} AS c
      WHERE NOT EXISTS (SELECT 1 FROM {{jobs}} AS j WHERE j.concurrency_key = c.concurrency_key)
      LIMIT ?) AS unused ON unused.concurrency_key = k.concurrency_key
