-- Queues holding available jobs that have been due for longer than a threshold: jobs nobody
-- claims, for the unserved-queue warning (leader only, once a minute). Reads the available jobs
-- only; in a healthy system they are few.
-- Index: jobs_claim_idx (available jobs).
-- Parameters: due before (the database's now minus the threshold).
SELECT queue, count(*), min(run_at)
FROM {{jobs}}
WHERE state = 'available'
  AND run_at < ?
GROUP BY queue
ORDER BY queue
