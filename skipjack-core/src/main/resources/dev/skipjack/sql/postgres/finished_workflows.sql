-- Retention (F-19) of workflows (F-14): one batch of workflows of one finished state whose finish
-- is older than the retention of that state's jobs, oldest first. Their jobs, edges and row are
-- then deleted together (delete_workflow_*.sql), so a workflow is never pruned in part, and never
-- while it runs (oban-bg/oban#722).
-- Index: workflows_finished_idx (state, finished_at) WHERE state <> 'running'.
-- Parameters: state, retention in milliseconds, limit.
SELECT id
FROM {{workflows}}
WHERE state <> 'running'
  AND state = ?
  AND finished_at < {{now}} - ? * interval '1 millisecond'
ORDER BY finished_at
LIMIT ?
