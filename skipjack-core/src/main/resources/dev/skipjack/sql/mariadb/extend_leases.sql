-- Heartbeat, step 1 of 2: locks and reads the executions this worker still runs, among the given
-- (id, attempt) pairs, in the order of the ids (sorted by the caller, as for every batch update of
-- running jobs). An execution missing from the result has lost its job (rescued, or finished
-- elsewhere) and must not count any more. Waits for locks (no SKIP LOCKED), as on PostgreSQL.
-- Each row also says whether an operator asked for the job to stop (stop_requested: the state
-- to end it in): the worker then interrupts its handler. The lease is extended all the same:
-- the job holds its key and its unique key until its handler has really stopped.
-- Index: primary key.
-- The pairs come as one JSON array of [id, attempt] rows, read by one JSON_TABLE (see
-- complete_jobs.sql: two arrays joined by position were quadratic in the number of held jobs).
-- Parameters: executions (JSON array of [id, attempt], ascending ids), worker id.
SELECT j.id, j.attempt, j.stop_requested
FROM JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', attempt INT PATH '$[1]')) AS h
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = h.id
WHERE j.attempt = h.attempt
  AND j.state = 'running'
  AND j.claimed_by = ?
FOR UPDATE
