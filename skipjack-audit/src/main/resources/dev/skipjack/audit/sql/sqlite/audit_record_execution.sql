-- One audit row for one execution. started_at is passed in (database time when the handler began,
-- epoch microseconds), or null for the statement's time ('now' is fixed per statement, not per
-- transaction: in a transactional job, the time of the audit insert). finished_at is the insert's.
-- Index: none (insert).
-- Parameters: job id, attempt, worker, pid, started_at in epoch microseconds (or null).
INSERT INTO {{audit_executions}} (job_id, attempt, worker, pid, started_at)
VALUES (?, ?, ?, ?, coalesce(?, CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) * 1000))
