-- Returns running jobs whose lease expired to the queue (F-3), step 1 of 2: locks and reads them.
-- Jobs held by an open transactional claim are locked and skipped: their state is not 'running'
-- to anyone else.
-- Returns each job's workflow_id and state after the rescue: a workflow's job discarded here advances its
-- workflow in the same transaction (F-14).
-- A job of a rate-limited key (F-12) that will run again waits to be admitted again ('waiting'):
-- its next start must fit the rate too.
-- A job an operator asked to stop (stop_requested, V015) whose worker is gone ends as asked,
-- without another attempt.
-- Index: jobs_lease_idx (state, lease_until).
-- Parameters: limit.
SELECT id, workflow_id, CASE WHEN stop_requested IN ('cancelled', 'discarded') THEN stop_requested
                        WHEN attempt >= max_attempts THEN 'discarded'
                        WHEN concurrency_order = 'rate' THEN 'waiting' ELSE 'available' END
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_lease_idx)
WHERE state = 'running'
  AND lease_until < {{now}}
ORDER BY lease_until
LIMIT ?
FOR UPDATE SKIP LOCKED
