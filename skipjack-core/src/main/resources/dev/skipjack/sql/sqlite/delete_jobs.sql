-- Operator delete: removes jobs that are not running and returns the ids and queues removed.
-- A workflow's jobs (F-14) are left to its retention, which deletes them with the workflow.
-- Index: primary key.
-- Parameters: ids (JSON array).
DELETE FROM {{jobs}}
WHERE id IN (SELECT value FROM json_each(?))
  AND state <> 'running'
  AND workflow_id IS NULL
RETURNING id, queue
