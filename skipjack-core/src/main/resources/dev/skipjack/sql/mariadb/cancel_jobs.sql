-- Operator cancel: ends jobs that have not finished, step 1 of 2: locks and reads the given jobs that may be changed.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- The id list drives the join (STRAIGHT_JOIN): each job is read by primary key, never by a scan.
-- A workflow's waiting job (F-14) can be cancelled too; the caller then advances its workflow in
-- the same transaction (its dependents are cancelled, or released under CONTINUE), so it returns
-- the job's workflow_id, and its state: a running job is only asked to stop (see
-- cancel_jobs_apply.sql), and its workflow advances when it really ends.
-- Index: primary key.
-- Parameters: ids (JSON array).
SELECT j.id, j.queue, j.workflow_id, j.state
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
WHERE j.state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
FOR UPDATE SKIP LOCKED
