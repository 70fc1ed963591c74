-- Raw SQL ceiling on SQLite, completion: one UPDATE per claimed batch.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE {{jobs}}
SET state       = 'completed',
    finished_at = CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000,
    lease_until = NULL
WHERE id IN (SELECT value FROM json_each(?))
