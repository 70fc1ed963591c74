-- Inserts a batch of jobs in one statement, one JSON array element per job (MariaDB: INSERT ...
-- RETURNING; MySQL has none and uses insert_job.sql in a JDBC batch instead).
-- run_at is the given instant, or the database clock plus the given delay, or now; a job due now
-- is 'available' at once, a later one 'scheduled' until promote_due_jobs.sql makes it available.
-- Rows are inserted in request order, so the returned ids are too.
-- Parameters: queues, kinds, args (JSON text), priorities, max attempts,
--             run_at (epoch milliseconds, or null), delay (milliseconds, or null): JSON arrays.
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT t.queue, t.kind, t.args, t.priority, t.max_attempts, t.due,
       CASE WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END
FROM (
    SELECT q.ord, q.queue, k.kind, a.args, p.priority, m.max_attempts,
           CASE
               WHEN r.run_at_ms IS NOT NULL
                   THEN CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL (r.run_at_ms * 1000) MICROSECOND
               WHEN d.delay_ms IS NOT NULL THEN {{statement_now}} + INTERVAL (d.delay_ms * 1000) MICROSECOND
               ELSE {{statement_now}}
           END AS due
    FROM JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, queue VARCHAR(64) PATH '$')) AS q
    JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, kind VARCHAR(128) PATH '$')) AS k ON k.ord = q.ord
    JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, args LONGTEXT PATH '$')) AS a ON a.ord = q.ord
    JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, priority SMALLINT PATH '$')) AS p ON p.ord = q.ord
    JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, max_attempts INT PATH '$')) AS m ON m.ord = q.ord
    JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, run_at_ms BIGINT PATH '$')) AS r ON r.ord = q.ord
    JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, delay_ms BIGINT PATH '$')) AS d ON d.ord = q.ord
) AS t
ORDER BY t.ord
RETURNING id
