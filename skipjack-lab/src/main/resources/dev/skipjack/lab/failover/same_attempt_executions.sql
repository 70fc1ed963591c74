-- Diagnostics: every audit row of jobs with two executions of the same attempt (what the checker
-- never explains: two workers held one lease, or an execution whose claim a failover lost), beside
-- the job's state and error history, the first 40.
-- Index: audit_executions_job_idx (job_id, attempt); a scan once after the run.
SELECT a.job_id, a.attempt, a.worker, a.started_at, a.finished_at, j.state, j.attempt, j.errors::text
FROM {{audit_executions}} a
JOIN {{jobs}} j ON j.id = a.job_id
WHERE a.job_id IN (SELECT job_id FROM {{audit_executions}} GROUP BY job_id, attempt HAVING count(*) > 1)
ORDER BY a.job_id, a.id
LIMIT 40
