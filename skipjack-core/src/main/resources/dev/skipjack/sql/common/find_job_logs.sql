-- Job reports (issue 12, item 6): a job's log lines, for operators, oldest first.
-- Index: job_logs' primary key (job_id, attempt, seq).
-- Parameters: job id.
SELECT attempt, seq, logged_at, line
FROM {{job_logs}}
WHERE job_id = ?
ORDER BY attempt, seq
