-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number
-- or another state.
-- statement_timestamp(), not now(): in transactional mode this runs in the claiming transaction.
-- Rows are locked in id order before the update, so two statements acknowledging or extending
-- overlapping sets of jobs wait for each other instead of deadlocking.
-- Index: primary key.
-- Parameters: ids, attempts.
WITH done AS (
    SELECT j.id
    FROM {{jobs}} AS j
    JOIN unnest(?::bigint[], ?::int[]) AS c(id, attempt) ON j.id = c.id AND j.attempt = c.attempt
    WHERE j.state = 'running'
    ORDER BY j.id
    FOR UPDATE OF j
)
UPDATE {{jobs}} AS j
SET state       = 'completed',
    finished_at = statement_timestamp(),
    lease_until = NULL
FROM done
WHERE j.id = done.id
  AND j.state = 'running'
