-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number
-- or another state.
-- statement_timestamp(), not now(): in transactional mode this runs in the claiming transaction.
-- Index: primary key.
-- Parameters: ids, attempts.
UPDATE {{jobs}} AS j
SET state       = 'completed',
    finished_at = statement_timestamp(),
    lease_until = NULL
FROM unnest(?::bigint[], ?::int[]) AS c(id, attempt)
WHERE j.id = c.id
  AND j.attempt = c.attempt
  AND j.state = 'running'
