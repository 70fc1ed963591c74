-- Operator cancel: ends jobs that have not finished and returns the ids and queues changed. A running
-- lease-mode job is not ended here but asked to stop (stop_requested = 'cancelled'): it keeps its
-- lease, its key's slot and its unique key until its worker ends the execution, or the rescue does
-- at the lease's expiry, as on PostgreSQL (see postgres/cancel_jobs.sql).
-- A job held by a running transactional job cannot be seen as running from here (its claim is
-- uncommitted): it is cancelled as available and the job's own commit then finds it changed.
-- A workflow's waiting job (F-14) can be cancelled too; the caller then advances its workflow in
-- the same transaction (its dependents are cancelled, or released under CONTINUE), so it returns
-- the job's workflow_id, and its state after the statement: 'running' for a stop requested,
-- whose workflow advances when the job really ends.
-- Index: primary key.
-- Parameters: ids (JSON array).
UPDATE {{jobs}}
SET state          = CASE WHEN state = 'running' THEN 'running' ELSE 'cancelled' END,
    finished_at    = CASE WHEN state = 'running' THEN NULL ELSE {{now}} END,
    lease_until    = CASE WHEN state = 'running' THEN lease_until END,
    stop_requested = CASE WHEN state = 'running' THEN 'cancelled' END
WHERE id IN (SELECT value FROM json_each(?))
  AND state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
RETURNING id, queue, workflow_id, state
