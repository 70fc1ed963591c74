-- One audit row for one execution. started_at is passed in (database time when the handler began,
-- epoch microseconds), or null for the statement's UTC time (no transaction-start clock here: in
-- a transactional job that is the time of the audit insert, not of the claim). finished_at is the
-- insert's time.
-- Index: none (insert).
-- Parameters: job id, attempt, worker, pid, started_at in epoch microseconds (or null).
INSERT INTO {{audit_executions}} (job_id, attempt, worker, pid, started_at)
VALUES (?, ?, ?, ?, COALESCE(TIMESTAMPADD(MICROSECOND, ?, TIMESTAMP '1970-01-01 00:00:00'), UTC_TIMESTAMP(6)))
