-- Raw SQL ceiling on MariaDB/MySQL, claim step 1 of 2: the same two-statement pattern as
-- Skipjack's claim there (no UPDATE ... RETURNING): lock and read up to N available jobs with
-- SKIP LOCKED, then ceiling_claim_apply.sql by primary key, in one READ COMMITTED transaction.
-- Index: jobs_claim_idx (queue, state, priority, run_at, id), read in the claim order (no filesort).
-- Parameters: queue, limit.
SELECT id, args
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_claim_idx)
WHERE queue = ?
  AND state = 'available'
ORDER BY priority, run_at, id
LIMIT ?
FOR UPDATE SKIP LOCKED
