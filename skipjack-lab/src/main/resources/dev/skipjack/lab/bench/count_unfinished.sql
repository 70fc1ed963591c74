-- Jobs not yet in a terminal state, to tell when a drain is over "in the database": available or
-- running. A benchmark handler never fails, and a rescued lease goes back to available, so a
-- drain's job is never scheduled or retryable (as in count_unfinished_kind.sql).
-- Index: BitmapOr of jobs_claim_idx (available) and jobs_lease_idx (running). The drain polls this
-- every 2 ms at its end; a sequential scan of the run's rows and their dead versions took a few
-- milliseconds of the database's time each, inside the measured drain.
SELECT count(*)
FROM {{jobs}}
WHERE state = 'available' OR state = 'running'
