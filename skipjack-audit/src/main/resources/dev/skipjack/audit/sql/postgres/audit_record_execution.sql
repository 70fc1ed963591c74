-- One audit row for one execution. started_at is passed in (database time when the handler began),
-- or null for now(): inside a transactional job's transaction that is the transaction's start, i.e.
-- the claim, with no extra round trip. finished_at is the insert's clock time.
-- Index: none (insert).
-- Parameters: job id, attempt, worker, pid, started_at in epoch microseconds (or null).
INSERT INTO {{audit_executions}} (job_id, attempt, worker, pid, started_at)
VALUES (?, ?, ?, ?, coalesce(timestamptz 'epoch' + ?::bigint * interval '1 microsecond', now()))
