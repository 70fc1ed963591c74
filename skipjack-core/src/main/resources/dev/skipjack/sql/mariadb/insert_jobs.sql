-- Inserts a batch of jobs in one statement, one JSON array element per job (MariaDB: INSERT ...
-- RETURNING; MySQL has none and uses insert_job.sql in a JDBC batch instead).
-- run_at is the given instant, or the database clock plus the given delay, or now; a job due now
-- is 'available' at once, a later one 'scheduled' until promote_due_jobs.sql makes it available.
-- Rows are inserted in request order, so the returned ids are too.
-- The jobs come as one JSON array of rows, read by one JSON_TABLE: seven arrays joined on their
-- FOR ORDINALITY columns had no index to join by (a nested loop, quadratic in the batch).
-- Parameters: jobs (JSON array of [queue, kind, args (JSON text), priority, max attempts,
--             run_at (epoch milliseconds, or null), delay (milliseconds, or null)]).
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT t.queue, t.kind, t.args, t.priority, t.max_attempts, t.due,
       CASE WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END
FROM (
    SELECT r.ord, r.queue, r.kind, r.args, r.priority, r.max_attempts,
           CASE
               WHEN r.run_at_ms IS NOT NULL
                   THEN CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL (r.run_at_ms * 1000) MICROSECOND
               WHEN r.delay_ms IS NOT NULL THEN {{statement_now}} + INTERVAL (r.delay_ms * 1000) MICROSECOND
               ELSE {{statement_now}}
           END AS due
    FROM JSON_TABLE(?, '$[*]' COLUMNS (ord          FOR ORDINALITY,
                                       queue        VARCHAR(64)  PATH '$[0]',
                                       kind         VARCHAR(128) PATH '$[1]',
                                       args         LONGTEXT     PATH '$[2]',
                                       priority     SMALLINT     PATH '$[3]',
                                       max_attempts INT          PATH '$[4]',
                                       run_at_ms    BIGINT       PATH '$[5]',
                                       delay_ms     BIGINT       PATH '$[6]')) AS r
) AS t
ORDER BY t.ord
RETURNING id
