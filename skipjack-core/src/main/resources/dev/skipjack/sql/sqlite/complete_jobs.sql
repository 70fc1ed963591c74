-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number or
-- another state. The ids and attempts are two JSON arrays paired by position (json_each's key).
-- Index: primary key.
-- Parameters: ids (JSON array), attempts (JSON array), the ids again (bound for the PostgreSQL
--             statement's plan; unused here beyond a null check).
UPDATE {{jobs}}
SET state       = 'completed',
    finished_at = {{statement_now}},
    lease_until = NULL
FROM (SELECT c_id.value AS done_id, c_att.value AS done_attempt
      FROM json_each(?) AS c_id
      JOIN json_each(?) AS c_att ON c_att.key = c_id.key) AS c
WHERE id = c.done_id
  AND state = 'running'
  AND attempt = c.done_attempt
  AND ? IS NOT NULL
