-- Concurrency-key probe: an execution of a keyed job begins.
-- Parameters: job id, attempt, job id.
INSERT INTO {{audit_running}} (job_id, attempt, concurrency_key)
SELECT ?, ?, concurrency_key FROM {{jobs}} WHERE id = ? AND concurrency_key IS NOT NULL
