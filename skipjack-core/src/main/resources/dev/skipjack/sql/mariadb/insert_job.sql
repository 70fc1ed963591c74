-- Inserts one job; run in a JDBC batch, one per job, where INSERT ... RETURNING is missing (MySQL):
-- each batched insert reports its own generated key, whereas a multi-row insert reports only the
-- first id (the rest would be a guess under innodb_autoinc_lock_mode = 2). Due time as insert_jobs.sql.
-- Parameters: queue, kind, args (JSON text), priority, max attempts,
--             run_at (epoch milliseconds, or null), delay (milliseconds, or null).
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT ?, ?, ?, ?, ?, t.due, CASE WHEN t.due > {{statement_now}} THEN 'scheduled' ELSE 'available' END
FROM (
    SELECT CASE
               WHEN p.run_at_ms IS NOT NULL
                   THEN CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL (p.run_at_ms * 1000) MICROSECOND
               WHEN p.delay_ms IS NOT NULL THEN {{statement_now}} + INTERVAL (p.delay_ms * 1000) MICROSECOND
               ELSE {{statement_now}}
           END AS due
    FROM (SELECT ? AS run_at_ms, ? AS delay_ms) AS p
) AS t
