-- Retention (F-19): deletes one batch of jobs of one terminal state that finished longer ago than
-- that state's retention, oldest first. Run by the maintenance leader only, batch after batch.
-- A single-table DELETE takes ORDER BY and LIMIT here, reading the index in finish order.
-- Jobs of a workflow (F-14) are not pruned here: they go with their workflow, once it finished
-- (finished_workflows.sql and delete_workflow_*.sql), so a running workflow never loses a job.
-- Index: jobs_finished_idx (state, finished_at).
-- Parameters: state, retention in milliseconds, limit.
DELETE FROM {{jobs}}
WHERE state IN ('completed', 'discarded', 'cancelled')
  AND state = ?
  AND finished_at < {{now}} - INTERVAL (? * 1000) MICROSECOND
  AND workflow_id IS NULL
ORDER BY finished_at
LIMIT ?
