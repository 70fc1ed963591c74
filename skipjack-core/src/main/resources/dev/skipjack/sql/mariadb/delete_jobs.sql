-- Operator delete: removes jobs that are not running, step 1 of 2: locks and reads the given jobs that may be changed.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- The id list drives the join (STRAIGHT_JOIN): each job is read by primary key, never by a scan.
-- A workflow's jobs (F-14) are left to its retention, which deletes them with the workflow.
-- Index: primary key.
-- Parameters: ids (JSON array).
SELECT j.id, j.queue
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
WHERE j.state <> 'running'
  AND j.workflow_id IS NULL
FOR UPDATE SKIP LOCKED
