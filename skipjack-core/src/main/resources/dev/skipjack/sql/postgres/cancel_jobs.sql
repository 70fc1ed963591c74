-- Operator cancel: ends jobs that have not finished. A running lease-mode job is marked cancelled
-- and loses its lease; its handler is not interrupted, but its outcome is then ignored because
-- complete_jobs.sql and record_outcomes.sql only touch rows still 'running'.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- A workflow's waiting job (F-14) can be cancelled too; the caller then advances its workflow in
-- the same transaction (its dependents are cancelled, or released under CONTINUE), so it returns
-- the job's workflow_id.
-- finished_at: the instant the row is taken (evaluation_now), not the statement's start, which is
-- before any lock wait: a job whose claim committed during the wait must not end before it began.
-- Index: primary key.
-- Parameters: ids.
WITH target AS (
    SELECT id FROM {{jobs}}
    WHERE id = ANY (?::bigint[])
      AND state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state       = 'cancelled',
    finished_at = {{evaluation_now}},
    lease_until = NULL
FROM target
WHERE j.id = target.id
RETURNING j.id, j.queue, j.workflow_id
