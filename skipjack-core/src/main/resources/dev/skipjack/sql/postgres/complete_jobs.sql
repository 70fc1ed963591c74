-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number
-- or another state.
-- statement_timestamp(), not now(): in transactional mode this runs in the claiming transaction.
-- Plan shape: for each given id, one primary-key lookup that locks the row (in the order of the
-- ids, which the caller sorts, so statements locking overlapping sets wait for each other
-- instead of deadlocking); state and attempt are checked on the locked row. OFFSET 0 keeps the
-- planner from pushing "state = 'running'" into the lookup, where it would make the partial
-- lease index usable: with statistics taken while few jobs ran, the planner then scanned all
-- running jobs once per given id (seen: one statement busy for minutes).
-- Index: primary key.
-- Parameters: ids (ascending), attempts.
WITH done AS (
    SELECT j.id
    FROM unnest(?::bigint[], ?::int[]) AS c(id, attempt)
    CROSS JOIN LATERAL (
        SELECT id, attempt, state FROM {{jobs}} WHERE id = c.id OFFSET 0 FOR UPDATE
    ) AS j
    WHERE j.attempt = c.attempt
      AND j.state = 'running'
)
UPDATE {{jobs}} AS j
SET state       = 'completed',
    finished_at = statement_timestamp(),
    lease_until = NULL
FROM done
WHERE j.id = done.id
