-- Every running job with the node that runs it and since when, for the operators' view. Running
-- jobs are few (at most the nodes' total concurrency), and the lease index holds exactly them.
-- Index: jobs_lease_idx (running jobs).
SELECT claimed_by, id, queue, kind, attempted_at
FROM {{jobs}}
WHERE state = 'running'
ORDER BY claimed_by, attempted_at, id
