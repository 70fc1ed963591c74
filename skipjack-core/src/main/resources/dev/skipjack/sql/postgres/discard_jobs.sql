-- Operator discard: ends jobs that have not finished. A running lease-mode job is only asked to
-- stop (stop_requested): it keeps its lease and its keys until its worker ends it, or the rescue
-- does (docs/state-machine.md). Rows of running transactional jobs are skipped (SKIP LOCKED).
-- Returns workflow_id (a workflow's ended job advances it in the caller's transaction, F-14) and
-- the new state ('running': asked to stop). finished_at: evaluation_now, when the row is taken.
-- Kept short: pg_stat_activity shows a statement's first 1,024 bytes (OperatorEndTimeTest).
-- Index: primary key.
-- Parameters: ids.
WITH target AS (
    SELECT id FROM {{jobs}}
    WHERE id = ANY (?::bigint[])
      AND state IN ('waiting', 'scheduled', 'available', 'running', 'retryable')
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state          = CASE WHEN j.state = 'running' THEN 'running' ELSE 'discarded' END,
    finished_at    = CASE WHEN j.state = 'running' THEN NULL ELSE {{evaluation_now}} END,
    lease_until    = CASE WHEN j.state = 'running' THEN j.lease_until END,
    stop_requested = CASE WHEN j.state = 'running' THEN 'discarded' END
FROM target
WHERE j.id = target.id
RETURNING j.id, j.queue, j.workflow_id, j.state
