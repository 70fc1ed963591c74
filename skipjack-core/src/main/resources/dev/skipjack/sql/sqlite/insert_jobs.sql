-- Inserts a batch of jobs in one statement, one JSON array element per job, paired by position.
-- run_at is the given instant, or the database clock plus the given delay, or now; a job due now
-- is 'available' at once, a later one 'scheduled' until promote_due_jobs.sql makes it available.
-- Rows are inserted in request order, so their ids ascend in request order; under the one write
-- lock an insert's AUTOINCREMENT ids are also consecutive, so JobInserter takes them from the row
-- count and last_insert_id.sql instead of a RETURNING that buffers every row.
-- json_each cannot be joined on its key by an index: every list but the first is a MATERIALIZED
-- table, which SQLite joins through an automatic index (one pass per list, not one per row).
-- Parameters: queues, kinds, args (JSON text), priorities, max attempts,
--             run_at (epoch milliseconds, or null), delay (milliseconds, or null): JSON arrays.
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
WITH k AS MATERIALIZED (SELECT key, value FROM json_each(?2)),
     a AS MATERIALIZED (SELECT key, value FROM json_each(?3)),
     p AS MATERIALIZED (SELECT key, value FROM json_each(?4)),
     m AS MATERIALIZED (SELECT key, value FROM json_each(?5)),
     r AS MATERIALIZED (SELECT key, value FROM json_each(?6)),
     d AS MATERIALIZED (SELECT key, value FROM json_each(?7))
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
    FROM json_each(?1) AS q
    JOIN k ON k.key = q.key
    JOIN a ON a.key = q.key
    JOIN p ON p.key = q.key
    JOIN m ON m.key = q.key
    JOIN r ON r.key = q.key
    JOIN d ON d.key = q.key
) AS t
ORDER BY t.ord
