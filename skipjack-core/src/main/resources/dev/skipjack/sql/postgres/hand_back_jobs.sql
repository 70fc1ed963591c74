-- Graceful shutdown: returns executions this worker will not finish to the queue at once, without
-- waiting for their lease to expire (F-18). The attempt is given back by raising max_attempts,
-- so the attempt number keeps growing and a late acknowledgement still cannot match.
-- Index: primary key.
-- Parameters: ids, attempts, worker id.
UPDATE {{jobs}} AS j
SET state        = 'available',
    lease_until  = NULL,
    max_attempts = j.max_attempts + 1,
    errors       = j.errors || jsonb_build_array(jsonb_build_object(
                       'at', now(),
                       'attempt', j.attempt,
                       'class', 'HandedBack',
                       'message', 'worker ' || j.claimed_by || ' shut down before the job finished',
                       'worker', j.claimed_by))
FROM unnest(?::bigint[], ?::int[]) AS h(id, attempt)
WHERE j.id = h.id
  AND j.attempt = h.attempt
  AND j.state = 'running'
  AND j.claimed_by = ?
RETURNING j.id
