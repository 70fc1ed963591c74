-- Inserts a batch of jobs that differ only in their args and are due now (the common bulk case):
-- one JSON array of args, the rest bound once. Ids ascend in request order (see insert_jobs.sql).
-- Parameters: queue, kind, priority, max attempts, args (JSON array of JSON texts).
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT ?, ?, a.value, ?, ?, {{statement_now}}, 'available'
FROM json_each(?) AS a
ORDER BY a.key
RETURNING id
