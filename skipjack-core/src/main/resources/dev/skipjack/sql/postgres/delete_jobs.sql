-- Operator delete: removes jobs that are not running (delete a running job by cancelling it first).
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- Index: primary key.
-- Parameters: ids.
WITH target AS (
    SELECT id FROM {{jobs}}
    WHERE id = ANY (?::bigint[])
      AND state <> 'running'
    FOR UPDATE SKIP LOCKED
)
DELETE FROM {{jobs}} AS j
USING target
WHERE j.id = target.id
RETURNING j.id, j.queue
