-- Returns running jobs whose lease expired to the queue (F-3): the attempt counts and "lease
-- expired" is recorded; out of attempts, the job is discarded. Jobs held by an open transactional
-- claim are not 'running' to anyone else (the claim is uncommitted), so they are never touched.
-- Returns each job's workflow_id and new state: a workflow's job discarded here advances its
-- workflow in the same transaction (F-14).
-- A job of a rate-limited key (F-12) that will run again waits to be admitted again ('waiting'):
-- its next start must fit the rate too.
-- A job an operator asked to stop (stop_requested, V015) whose worker is gone ends as asked,
-- without another attempt.
-- Index: jobs_lease_idx (lease_until) WHERE state = 'running'.
-- Parameters: limit.
UPDATE {{jobs}}
SET state       = CASE WHEN stop_requested IN ('cancelled', 'discarded') THEN stop_requested
                        WHEN attempt >= max_attempts THEN 'discarded'
                        WHEN concurrency_order = 'rate' THEN 'waiting' ELSE 'available' END,
    finished_at = CASE WHEN stop_requested IN ('cancelled', 'discarded') OR attempt >= max_attempts
                        THEN {{now}} END,
    lease_until = NULL,
    errors      = json_insert(errors, '$[#]', json_object(
                      'at', strftime('%Y-%m-%dT%H:%M:%fZ', {{now}} / 1000000.0, 'unixepoch'),
                      'attempt', attempt,
                      'class', 'LeaseExpired',
                      'message', 'lease expired: worker ' || coalesce(claimed_by, '?') || ' stopped extending it',
                      'worker', claimed_by))
WHERE id IN (
        SELECT id
        FROM {{jobs}}
        WHERE state = 'running'
          AND lease_until < {{now}}
        ORDER BY lease_until
        LIMIT ?)
  AND +state = 'running'
  AND lease_until < {{now}}
RETURNING id, workflow_id, state
