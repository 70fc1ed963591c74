-- Returns running jobs whose lease expired (their worker died or lost the database) to the queue,
-- with the attempt counted and "lease expired" recorded; out of attempts, they are discarded (F-3).
-- The UPDATE re-checks state and expiry on the locked row, so a job that finished, or whose lease
-- was extended, after the CTE looked at it is never touched. Jobs held by an open transactional
-- claim are locked and skipped: their state is not 'running' to anyone else.
-- Returns each job's workflow_id and new state: a workflow's job discarded here advances its
-- workflow in the same transaction (F-14).
-- A job of a rate-limited key (F-12) that will run again waits to be admitted again ('waiting'):
-- its next start must fit the rate too.
-- A job an operator asked to stop (stop_requested, V015) whose worker is gone ends as asked,
-- without another attempt.
-- Index: jobs_lease_idx (lease_until) WHERE state = 'running'.
-- Parameters: limit.
WITH expired AS (
    SELECT id
    FROM {{jobs}}
    WHERE state = 'running'
      AND lease_until < {{now}}
    ORDER BY lease_until
    LIMIT ?
    FOR UPDATE SKIP LOCKED
)
UPDATE {{jobs}} AS j
SET state       = CASE WHEN j.stop_requested IN ('cancelled', 'discarded') THEN j.stop_requested
                        WHEN j.attempt >= j.max_attempts THEN 'discarded'
                        WHEN j.concurrency_order = 'rate' THEN 'waiting' ELSE 'available' END,
    finished_at = CASE WHEN j.stop_requested IN ('cancelled', 'discarded') OR j.attempt >= j.max_attempts
                        THEN {{now}} END,
    lease_until = NULL,
    errors      = j.errors || jsonb_build_array(jsonb_build_object(
                      'at', {{now}},
                      'attempt', j.attempt,
                      'class', 'LeaseExpired',
                      'message', 'lease expired: worker ' || coalesce(j.claimed_by, '?') || ' stopped extending it',
                      'worker', j.claimed_by))
FROM expired
WHERE j.id = expired.id
  AND j.state = 'running'
  AND j.lease_until < {{now}}
RETURNING j.id, j.workflow_id, j.state
