-- Job reports (issue 12, item 6): records the latest progress a handler reported, for executions
-- this worker runs; one row per job. Guarded like every execution write (the job running with this
-- attempt), and a row of a newer attempt is never overwritten by an older one.
-- Times are statement_timestamp(): in transactional mode this runs in the job's transaction.
-- Index: the jobs' and job_progress' primary keys.
-- Parameters: job ids, attempts, percents, messages (or null).
INSERT INTO {{job_progress}} AS p (job_id, attempt, percent, message, updated_at)
SELECT v.job_id, v.attempt, v.percent, v.message, {{statement_now}}
FROM unnest(?::bigint[], ?::int[], ?::int[], ?::text[]) AS v(job_id, attempt, percent, message)
JOIN {{jobs}} AS j ON j.id = v.job_id
WHERE j.attempt = v.attempt
  AND j.state = 'running'
ON CONFLICT (job_id) DO UPDATE
SET attempt    = excluded.attempt,
    percent    = excluded.percent,
    message    = excluded.message,
    updated_at = excluded.updated_at
WHERE p.attempt <= excluded.attempt
