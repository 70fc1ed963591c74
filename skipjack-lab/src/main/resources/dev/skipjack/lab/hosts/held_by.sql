-- hosts: the executions a worker holds in the database (running jobs claimed by it): taken
-- right after its host's link is cut, they are the jobs that must come back elsewhere.
-- Index: jobs_lease_idx (partial, running jobs).
-- Parameters: worker id.
SELECT id, attempt
FROM {{jobs}}
WHERE state = 'running'
  AND claimed_by = ?
ORDER BY id
