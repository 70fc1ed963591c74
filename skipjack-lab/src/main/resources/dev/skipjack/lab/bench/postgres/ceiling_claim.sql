-- Raw SQL ceiling on PostgreSQL, claim: the single-statement CTE of BENCHMARK.md, batch given by the caller.
-- Index: jobs_claim_idx (queue, priority, run_at, id) WHERE state = 'available'.
-- Parameters: queue, limit.
WITH next AS (
    SELECT id
    FROM {{jobs}}
    WHERE state = 'available'
      AND queue = ?
    ORDER BY priority, run_at, id
    LIMIT ?
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state        = 'running',
    attempt      = j.attempt + 1,
    attempted_at = now(),
    claimed_by   = 'ceiling',
    lease_until  = now() + interval '30 seconds'
FROM next
WHERE j.id = next.id
RETURNING j.id, j.args::text
