-- Operator snooze: pushes waiting jobs to run later, step 1 of 2: locks and reads the given jobs that may be changed.
-- Rows held by a running transactional job are skipped (SKIP LOCKED), never waited for.
-- The id list drives the join (STRAIGHT_JOIN): each job is read by primary key, never by a scan.
-- Index: primary key.
-- Parameters: ids (JSON array).
SELECT j.id, j.queue
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
WHERE j.state IN ('scheduled', 'available', 'retryable')
FOR UPDATE SKIP LOCKED
