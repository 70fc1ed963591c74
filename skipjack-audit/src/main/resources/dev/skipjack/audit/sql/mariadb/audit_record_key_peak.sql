-- Concurrency-key probe: what an execution saw when it began.
-- Parameters: job id, attempt, executions of its key running, job id.
INSERT INTO {{audit_key_peaks}} (job_id, attempt, concurrency_key, running)
SELECT ?, ?, concurrency_key, ? FROM {{jobs}} WHERE id = ? AND concurrency_key IS NOT NULL
