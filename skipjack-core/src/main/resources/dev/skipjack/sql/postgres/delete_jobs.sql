-- Operator delete: removes jobs that are not running (delete a running job by cancelling it first).
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- A workflow's jobs (F-14) are left to its retention, which deletes them with the workflow.
-- Index: primary key.
-- Parameters: ids.
WITH target AS (
    SELECT id FROM {{jobs}}
    WHERE id = ANY (?::bigint[])
      AND state <> 'running'
      AND workflow_id IS NULL
    FOR UPDATE SKIP LOCKED
)
DELETE FROM {{jobs}} AS j
USING target
WHERE j.id = target.id
RETURNING j.id, j.queue
