-- Job reports (issue 12, item 6): a job's latest progress, for operators.
-- Index: job_progress' primary key.
-- Parameters: job id.
SELECT attempt, percent, message, updated_at
FROM {{job_progress}}
WHERE job_id = ?
