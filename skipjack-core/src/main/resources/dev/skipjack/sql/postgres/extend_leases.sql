-- Heartbeat: extends the leases of the executions this worker still runs, on the database clock.
-- Returns the (id, attempt) executions whose lease was extended; an execution missing from the
-- result has lost its job (rescued, or finished elsewhere) and must not count any more.
-- Index: primary key.
-- Parameters: lease in milliseconds, ids, attempts, worker id.
UPDATE {{jobs}} AS j
SET lease_until = now() + ? * interval '1 millisecond'
FROM unnest(?::bigint[], ?::int[]) AS h(id, attempt)
WHERE j.id = h.id
  AND j.attempt = h.attempt
  AND j.state = 'running'
  AND j.claimed_by = ?
RETURNING j.id, j.attempt
