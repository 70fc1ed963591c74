-- Diagnostics after a run that found more than one execution of some jobs: every audit row of
-- those jobs (worker, attempt, times) beside the job's state and error history, the first 20, so
-- the log shows which fault each repetition followed.
-- Index: audit_executions_job_idx (job_id, attempt); a scan once after the run.
SELECT a.job_id, a.attempt, a.worker, a.started_at, a.finished_at, j.state, j.attempt, j.errors::text
FROM {{audit_executions}} a
JOIN {{jobs}} j ON j.id = a.job_id
WHERE a.job_id IN (SELECT job_id FROM {{audit_executions}} GROUP BY job_id HAVING count(*) > 1)
ORDER BY a.job_id, a.id
LIMIT 20
