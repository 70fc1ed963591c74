-- Heartbeat: extends the leases of the executions this worker still runs, among the given
-- (id, attempt) pairs, on the database clock, and returns those it extended. An execution missing
-- from the result has lost its job (rescued, or finished elsewhere) and must not count any more.
-- The pairs are two JSON arrays paired by position (json_each's key; see complete_jobs.sql).
-- Each row also says whether an operator asked for the job to stop (stop_requested: the state
-- to end it in): the worker then interrupts its handler. The lease is extended all the same:
-- the job holds its key and its unique key until its handler has really stopped.
-- Index: primary key ('+state': the guard is checked on the row, never by a scan of the partial
-- lease index, which the planner would pick when few jobs run; SqlitePlanTest).
-- Parameters: ?1 ids (JSON array), ?2 attempts (JSON array), ?3 worker id, ?4 lease in milliseconds.
WITH h_att AS MATERIALIZED (SELECT key, value FROM json_each(?2))
UPDATE {{jobs}}
SET lease_until = {{now}} + ?4 * 1000
FROM (SELECT h_id.value AS held_id, h_att.value AS held_attempt
      FROM json_each(?1) AS h_id
      JOIN h_att ON h_att.key = h_id.key) AS h
WHERE id = h.held_id
  AND attempt = h.held_attempt
  AND +state = 'running'
  AND claimed_by = ?3
RETURNING id, attempt, stop_requested
