-- Inserts a batch of jobs in one statement, one JSON array element per job, paired by position.
-- run_at is the given instant, or the database clock plus the given delay, or now; a job due now
-- is 'available' at once, a later one 'scheduled' until promote_due_jobs.sql makes it available.
-- Rows are inserted in request order, so their ids ascend in request order; RETURNING gives them
-- in no particular order, and JobInserter sorts them.
-- Parameters: queues, kinds, args (JSON text), priorities, max attempts,
--             run_at (epoch milliseconds, or null), delay (milliseconds, or null): JSON arrays.
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT t.queue, t.kind, t.args, t.priority, t.max_attempts, t.due,
       CASE WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END
FROM (
    SELECT q.key AS ord, q.value AS queue, k.value AS kind, a.value AS args, p.value AS priority,
           m.value AS max_attempts,
           CASE
               WHEN r.value IS NOT NULL THEN r.value * 1000
               WHEN d.value IS NOT NULL THEN {{statement_now}} + d.value * 1000
               ELSE {{statement_now}}
           END AS due
    FROM json_each(?) AS q
    JOIN json_each(?) AS k ON k.key = q.key
    JOIN json_each(?) AS a ON a.key = q.key
    JOIN json_each(?) AS p ON p.key = q.key
    JOIN json_each(?) AS m ON m.key = q.key
    JOIN json_each(?) AS r ON r.key = q.key
    JOIN json_each(?) AS d ON d.key = q.key
) AS t
ORDER BY t.ord
RETURNING id
