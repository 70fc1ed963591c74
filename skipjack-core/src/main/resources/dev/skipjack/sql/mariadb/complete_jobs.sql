-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number or
-- another state. The ids and attempts are two JSON arrays paired by position (FOR ORDINALITY);
-- rows are read by primary key in the order given (ascending ids, sorted by the caller), so two
-- batch updates touching the same jobs wait for each other instead of deadlocking.
-- Index: primary key.
-- Parameters: ids (JSON array, ascending), attempts (JSON array), the ids again (bound for the
--             PostgreSQL statement's plan; unused here beyond a null check).
UPDATE JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, id BIGINT PATH '$')) AS c_id
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, attempt INT PATH '$')) AS c_att ON c_att.ord = c_id.ord
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = c_id.id
SET j.state       = 'completed',
    j.finished_at = {{statement_now}},
    j.lease_until = NULL
WHERE j.state = 'running'
  AND j.attempt = c_att.attempt
  AND ? IS NOT NULL
