-- Job reports (issue 12, item 6): keeps a job's log bounded. Run by the worker after it wrote
-- lines past Limits.MAX_LOG_LINES in one attempt (drops that attempt's oldest), or the first lines
-- of an attempt past Limits.MAX_LOG_ATTEMPTS (drops the lines of attempts that old); never
-- otherwise.
-- Index: job_logs' primary key (job_id, attempt, seq).
-- Parameters: job id, the newest attempt dropped whole (0: none), the writing attempt, its newest
-- line number dropped (0: none).
DELETE FROM {{job_logs}}
WHERE job_id = ?
  AND (attempt <= ? OR (attempt = ? AND seq <= ?))
