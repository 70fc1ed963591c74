-- Heartbeat: extends the leases of the executions this worker still runs, on the database clock.
-- Returns the (id, attempt) executions whose lease was extended; an execution missing from the
-- result has lost its job (rescued, or finished elsewhere) and must not count any more.
-- Plan shape as complete_jobs.sql: one primary-key lookup per given id, locking rows in the
-- order of the ids (sorted by the caller, as for every batch update of running jobs, so a
-- heartbeat and an acknowledgement touching the same jobs cannot deadlock), the guards checked
-- on the locked row, never a scan of the running jobs per id.
-- Each row also says whether an operator asked for the job to stop (stop_requested: the state
-- to end it in): the worker then interrupts its handler. The lease is extended all the same:
-- the job holds its key and its unique key until its handler has really stopped.
-- Index: primary key.
-- Parameters: ids (ascending), attempts, worker id, lease in milliseconds.
WITH mine AS (
    SELECT j.id
    FROM unnest(?::bigint[], ?::int[]) AS h(id, attempt)
    CROSS JOIN LATERAL (
        SELECT id, attempt, state, claimed_by FROM {{jobs}} WHERE id = h.id OFFSET 0 FOR UPDATE
    ) AS j
    WHERE j.attempt = h.attempt
      AND j.state = 'running'
      AND j.claimed_by = ?
)
UPDATE {{jobs}} AS j
SET lease_until = {{now}} + ? * interval '1 millisecond'
FROM mine
WHERE j.id = mine.id
RETURNING j.id, j.attempt, j.stop_requested
