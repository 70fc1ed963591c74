-- Heartbeat, step 1 of 2: locks and reads the executions this worker still runs, among the given
-- (id, attempt) pairs, in the order of the ids (sorted by the caller, as for every batch update of
-- running jobs). An execution missing from the result has lost its job (rescued, or finished
-- elsewhere) and must not count any more. Waits for locks (no SKIP LOCKED), as on PostgreSQL.
-- Index: primary key.
-- Parameters: ids (JSON array, ascending), attempts (JSON array), worker id.
SELECT j.id, j.attempt
FROM JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, id BIGINT PATH '$')) AS h_id
JOIN JSON_TABLE(?, '$[*]' COLUMNS (ord FOR ORDINALITY, attempt INT PATH '$')) AS h_att ON h_att.ord = h_id.ord
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = h_id.id
WHERE j.attempt = h_att.attempt
  AND j.state = 'running'
  AND j.claimed_by = ?
FOR UPDATE
