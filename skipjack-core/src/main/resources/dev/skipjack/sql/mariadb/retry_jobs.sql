-- Operator retry: makes jobs available now, from any state but running and available, step 1 of 2: locks and reads the given jobs that may be changed.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- The id list drives the join (STRAIGHT_JOIN): each job is read by primary key, never by a scan.
-- A finished unique job (F-10) whose key another job holds by now is left as it is: two jobs
-- holding one key is what jobs_unique_idx forbids.
-- A workflow's job (F-14) is left as it is: its workflow counted it as ended, and its dependents
-- were released or cancelled accordingly.
-- Index: primary key; jobs_unique_idx (unique_slot) for the holder.
-- Parameters: ids (JSON array).
SELECT j.id, j.queue
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
WHERE j.state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled')
  AND j.workflow_id IS NULL
  AND (j.unique_key IS NULL OR j.state IN ('scheduled', 'retryable') OR NOT EXISTS (
          SELECT 1 FROM {{jobs}} AS holder
          WHERE holder.unique_slot = j.unique_key AND holder.id <> j.id))
FOR UPDATE SKIP LOCKED
