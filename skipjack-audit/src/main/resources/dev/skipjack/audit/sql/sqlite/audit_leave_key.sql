-- Concurrency-key probe: an execution of a keyed job ends.
-- Parameters: job id, attempt.
DELETE FROM {{audit_running}} WHERE job_id = ? AND attempt = ?
