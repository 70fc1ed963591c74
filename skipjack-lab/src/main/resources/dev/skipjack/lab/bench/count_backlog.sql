-- Stream and soak: queue depth, the jobs enqueued and not yet finished (available, or claimed and
-- running or waiting in a worker's buffer). Two counts, each on its own partial index, so sampling
-- it every half second stays cheap while the table fills with finished rows.
-- Index: jobs_claim_idx (state = 'available'), jobs_lease_idx (state = 'running').
SELECT (SELECT count(*) FROM {{jobs}} WHERE state = 'available')
     + (SELECT count(*) FROM {{jobs}} WHERE state = 'running')
