-- Returns running jobs whose lease expired to the queue (F-3), step 1 of 2: locks and reads them.
-- Jobs held by an open transactional claim are locked and skipped: their state is not 'running'
-- to anyone else.
-- Index: jobs_lease_idx (state, lease_until).
-- Parameters: limit.
SELECT id
FROM {{jobs}} FORCE INDEX ({{prefix}}jobs_lease_idx)
WHERE state = 'running'
  AND lease_until < {{now}}
ORDER BY lease_until
LIMIT ?
FOR UPDATE SKIP LOCKED
