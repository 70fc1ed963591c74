-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number or
-- another state. The executions come as one JSON array of [id, attempt] rows (Dialect.setRows),
-- read by one JSON_TABLE: two arrays joined on their FOR ORDINALITY columns have no index to
-- join by, so the join was a nested loop over both, quadratic in the batch (0.6 s for 2,000
-- jobs on MariaDB 10.11). Rows are read by primary key in the order given (ascending ids, sorted
-- by the caller), so two batch updates touching the same jobs wait for each other instead of
-- deadlocking.
-- Index: primary key.
-- Parameters: executions (JSON array of [id, attempt], ascending ids), the ids (bound for the
--             PostgreSQL statement's plan; unused here beyond a null check).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', attempt INT PATH '$[1]')) AS c
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c.id
SET j.state       = 'completed',
    j.finished_at = {{statement_now}},
    j.lease_until = NULL
WHERE j.state = 'running'
  AND j.attempt = c.attempt
  AND ? IS NOT NULL
