-- Heartbeat: extends the leases of the executions this worker still runs, on the database clock.
-- Returns the (id, attempt) executions whose lease was extended; an execution missing from the
-- result has lost its job (rescued, or finished elsewhere) and must not count any more.
-- Index: primary key.
-- Rows are locked in id order first, as complete_jobs.sql and record_outcomes.sql do, so a
-- heartbeat and a batch acknowledgement touching the same jobs can never deadlock.
-- Parameters: ids, attempts, worker id, lease in milliseconds.
WITH mine AS (
    SELECT j.id
    FROM {{jobs}} AS j
    JOIN unnest(?::bigint[], ?::int[]) AS h(id, attempt) ON j.id = h.id AND j.attempt = h.attempt
    WHERE j.state = 'running'
      AND j.claimed_by = ?
    ORDER BY j.id
    FOR UPDATE OF j
)
UPDATE {{jobs}} AS j
SET lease_until = now() + ? * interval '1 millisecond'
FROM mine
WHERE j.id = mine.id
  AND j.state = 'running'
RETURNING j.id, j.attempt
