-- Jobs of one kind still to run, on a table that may hold millions of other rows (depth's filler):
-- available or running. A benchmark handler never fails, and a rescued lease goes back to
-- available, so a drain's job is never scheduled or retryable; leaving those states out keeps the
-- count off jobs_due_idx, whose run_at bound the planner misjudges on a table of millions of
-- terminal rows (their run_at is in range too), where it chose a sequential scan: 1-2.6 s a count.
-- Index: BitmapOr of jobs_claim_idx (available) and jobs_lease_idx (running), the partial indexes'
-- own predicates, so the terminal and scheduled filler is never walked.
-- Parameters: kind.
SELECT count(*)
FROM {{jobs}}
WHERE kind = ?
  AND (state = 'available' OR state = 'running')
