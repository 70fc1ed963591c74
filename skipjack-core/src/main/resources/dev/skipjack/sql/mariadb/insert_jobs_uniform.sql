-- Inserts a batch of jobs that differ only in their args and are due now (the common bulk case):
-- one JSON array of args, the rest bound once. MariaDB only (INSERT ... RETURNING); MySQL uses
-- insert_job.sql. Rows are inserted in request order, so the returned ids are too.
-- Parameters: queue, kind, priority, max attempts, args (JSON array of JSON texts).
INSERT INTO {{jobs}} (queue, kind, args, priority, max_attempts, run_at, state)
SELECT ?, ?, a.args, ?, ?, {{statement_now}}, 'available'
FROM JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, args LONGTEXT PATH '$')) AS a
ORDER BY a.ord
RETURNING id
