-- Retention (F-19): deletes one batch of jobs of one terminal state that finished longer ago than
-- that state's retention, oldest first. Run by the maintenance leader only, batch after batch.
-- A single-table DELETE takes ORDER BY and LIMIT here, reading the index in finish order.
-- Jobs of a workflow (F-14) are not pruned here: they go with their workflow, once it finished
-- (finished_workflows.sql and delete_workflow_*.sql), so a running workflow never loses a job.
-- A rate-limited job (F-12) is kept while its start still counts against its key's rate
-- (count_rate_holders.sql reads the starts from the jobs): pruned earlier, with a retention under
-- the rate's period, its start was forgotten and the next job admitted at once.
-- Index: jobs_finished_idx (state, finished_at).
-- Parameters: state, retention in milliseconds, limit.
DELETE FROM {{jobs}}
WHERE state IN ('completed', 'discarded', 'cancelled')
  AND state = ?
  AND finished_at < {{now}} - INTERVAL (? * 1000) MICROSECOND
  AND workflow_id IS NULL
  AND (concurrency_period_ms IS NULL OR attempted_at IS NULL
       OR attempted_at <= {{now}} - INTERVAL (concurrency_period_ms * 1000) MICROSECOND)
ORDER BY finished_at
LIMIT ?
