-- Operator discard: ends jobs that have not finished and returns the ids and queues changed. A running
-- lease-mode job is marked discarded and loses its lease; its handler is not interrupted, but its
-- outcome is then ignored because complete_jobs.sql and record_outcomes.sql only touch rows still
-- 'running'. A job held by a running transactional job cannot be seen as running from here (its
-- claim is uncommitted): it is discarded as available and the job's own commit then finds it changed.
-- A workflow's waiting job (F-14) can be cancelled too; the caller then advances its workflow in
-- the same transaction (its dependents are cancelled, or released under CONTINUE), so it returns
-- the job's workflow_id.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE {{jobs}}
SET state       = 'discarded',
    finished_at = {{now}},
    lease_until = NULL
WHERE id IN (SELECT value FROM json_each(?))
  AND state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
RETURNING id, queue, workflow_id
