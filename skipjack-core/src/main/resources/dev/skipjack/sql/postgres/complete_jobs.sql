-- Marks a batch of finished executions completed in one statement (F-17).
-- An execution is (id, attempt): the guard on attempt and state makes a late or duplicate
-- acknowledgement harmless, because a rescued or re-claimed job has another attempt number
-- or another state. A row another statement changed while this one waited for its lock is
-- checked again in its new version (PostgreSQL re-evaluates the conditions on it).
-- statement_timestamp(), not now(): in transactional mode this runs in the claiming transaction.
-- Plan shape: the jobs are read by primary key (id = ANY, which walks the index in ascending id
-- order) and matched with their attempts. Both sides come in ascending id order (the caller
-- sorts the ids), so rows are locked in id order, as by every batch update of running jobs, and
-- statements touching the same jobs wait for each other instead of deadlocking.
-- The guard is written as one CASE expression on purpose: a plain "state = 'running'" lets the
-- planner use the partial lease index, and with statistics taken while few jobs ran it walked
-- all running jobs once per acknowledged job (seen: one statement busy for minutes).
-- BatchUpdatePlanTest holds the plan to this shape. An earlier form locked each row in a CTE
-- (SELECT ... FOR UPDATE) and then updated it: a second lookup per row, a seventh slower.
-- Index: primary key.
-- Parameters: ids (ascending), attempts, the same ids again.
UPDATE {{jobs}} AS j
SET state       = 'completed',
    finished_at = {{statement_now}},
    lease_until = NULL
FROM unnest(?::bigint[], ?::int[]) AS c(id, attempt)
WHERE j.id = ANY (?::bigint[])
  AND j.id = c.id
  AND CASE WHEN j.state = 'running' THEN j.attempt END = c.attempt
