-- Operator delete: removes jobs that are not running and returns the ids and queues removed.
-- Index: primary key.
-- Parameters: ids (JSON array).
DELETE FROM {{jobs}}
WHERE id IN (SELECT value FROM json_each(?))
  AND state <> 'running'
RETURNING id, queue
