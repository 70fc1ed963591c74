-- Raw SQL ceiling on SQLite, claim: Skipjack's pattern there, one atomic conditional UPDATE under
-- the database's write lock (no row locks, no SKIP LOCKED), returning the claimed rows. Times are
-- epoch microseconds, as the schema stores them.
-- Index: jobs_claim_idx (queue, priority, run_at) WHERE state = 'available', read in order.
-- Parameters: ?1 queue, ?2 limit.
UPDATE {{jobs}}
SET state        = 'running',
    attempt      = attempt + 1,
    attempted_at = CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000,
    claimed_by   = 'ceiling',
    lease_until  = CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000 + 30000000
WHERE id IN (
        SELECT id
        FROM {{jobs}}
        WHERE state = 'available'
          AND queue = ?1
        ORDER BY priority, run_at, id
        LIMIT ?2)
  AND state = 'available'
RETURNING id, args
