-- Raw SQL ceiling on PostgreSQL, completion: one UPDATE per claimed batch.
-- Index: primary key.
-- Parameters: ids.
UPDATE {{jobs}}
SET state       = 'completed',
    finished_at = now(),
    lease_until = NULL
WHERE id = ANY (?::bigint[])
