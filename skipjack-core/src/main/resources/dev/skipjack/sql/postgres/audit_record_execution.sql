-- One audit row for one execution. started_at is passed in (database time read when the handler
-- began, or the job transaction's now() in transactional mode); finished_at defaults to now.
-- Index: none (insert).
-- Parameters: job id, attempt, worker, pid, started_at (or null).
INSERT INTO {{audit_executions}} (job_id, attempt, worker, pid, started_at)
VALUES (?, ?, ?, ?, ?)
