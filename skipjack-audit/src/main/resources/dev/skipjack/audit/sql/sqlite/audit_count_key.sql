-- Concurrency-key probe: the executions of a job's key running now, counted only while their job
-- is running in their attempt (a killed worker's stops counting once its lease is rescued).
-- Parameters: job id.
SELECT count(*)
FROM {{audit_running}} r
JOIN {{jobs}} j ON j.id = r.job_id AND j.attempt = r.attempt
WHERE j.state = 'running'
  AND r.concurrency_key = (SELECT concurrency_key FROM {{jobs}} WHERE id = ?)
