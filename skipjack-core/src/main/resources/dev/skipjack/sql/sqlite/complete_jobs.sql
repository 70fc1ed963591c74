-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number or
-- another state. The ids and attempts are two JSON arrays paired by position (json_each's key;
-- the attempts MATERIALIZED, so the pairing goes through an automatic index, see insert_jobs.sql).
-- Index: primary key ('+state': the guard is checked on the row, never by a scan of the partial
-- lease index, which the planner would pick when few jobs run; SqlitePlanTest).
-- Parameters: ?1 ids (JSON array), ?2 attempts (JSON array), ?3 the ids again (bound for the PostgreSQL
--             statement's plan; unused here beyond a null check).
WITH c_att AS MATERIALIZED (SELECT key, value FROM json_each(?2))
UPDATE {{jobs}}
SET state       = 'completed',
    finished_at = {{statement_now}},
    lease_until = NULL
FROM (SELECT c_id.value AS done_id, c_att.value AS done_attempt
      FROM json_each(?1) AS c_id
      JOIN c_att ON c_att.key = c_id.key) AS c
WHERE id = c.done_id
  AND +state = 'running'
  AND attempt = c.done_attempt
  AND ?3 IS NOT NULL
