-- Per queue with available jobs: the due time of its oldest available job and the database's now,
-- read together so the age is on the database clock (the health indicator's "oldest available").
-- Index: the claim index (queue, priority, run_at, id) WHERE state = 'available' holds every column it
-- reads, so the available jobs are read through it (an index-only scan where the planner likes it), not the table.
SELECT queue, min(run_at), {{now}}
FROM {{jobs}}
WHERE state = 'available'
GROUP BY queue
