-- Job reports (issue 12, item 6): appends log lines a handler reported, for executions this worker
-- runs. Guarded like every execution write: a line is written only while its job is running with
-- the line's attempt, so a stale handler (its job rescued or finished) writes nothing, and never into
-- a newer attempt (lines are keyed by their own attempt). A line written twice (a flush retried
-- after an ambiguous failure) is kept once.
-- Times are statement_timestamp(): in transactional mode this runs in the job's transaction.
-- Index: the jobs' and job_logs' primary keys.
-- Parameters: job ids, attempts, line numbers, lines.
INSERT INTO {{job_logs}} (job_id, attempt, seq, logged_at, line)
SELECT v.job_id, v.attempt, v.seq, {{statement_now}}, v.line
FROM unnest(?::bigint[], ?::int[], ?::int[], ?::text[]) AS v(job_id, attempt, seq, line)
JOIN {{jobs}} AS j ON j.id = v.job_id
WHERE j.attempt = v.attempt
  AND j.state = 'running'
ON CONFLICT (job_id, attempt, seq) DO NOTHING
