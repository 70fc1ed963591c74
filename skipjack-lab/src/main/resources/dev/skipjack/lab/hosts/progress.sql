-- hosts: jobs finished and jobs left (available, running, retrying) in the run's table.
-- Index: none; a scan of the run's own table (at most a few hundred thousand rows), once per poll.
SELECT count(*) FILTER (WHERE state IN ('completed', 'discarded', 'cancelled')),
       count(*) FILTER (WHERE state NOT IN ('completed', 'discarded', 'cancelled'))
FROM {{jobs}}
