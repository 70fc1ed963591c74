-- Job reports (issue 12, item 6): records the latest progress a handler reported, for executions
-- this worker runs; one row per job. Guarded like every execution write (the job running with this
-- attempt), and a row of a newer attempt is never overwritten by an older one. The assignments run
-- left to right, so attempt, which the others compare against, is set last.
-- Index: the jobs' and job_progress' primary keys.
-- Parameters: progress (JSON array of [job id, attempt, percent, message or null], ascending job ids).
INSERT INTO {{job_progress}} (job_id, attempt, percent, message, updated_at)
SELECT v.job_id, v.attempt, v.percent, v.message, {{statement_now}}
FROM JSON_TABLE(?, '$[*]' COLUMNS (job_id  BIGINT   PATH '$[0]',
                                     attempt INT      PATH '$[1]',
                                     percent INT      PATH '$[2]',
                                     message LONGTEXT PATH '$[3]')) AS v
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = v.job_id
WHERE j.attempt = v.attempt
  AND j.state = 'running'
ON DUPLICATE KEY UPDATE
    percent    = IF(VALUES(attempt) >= {{job_progress}}.attempt, VALUES(percent), {{job_progress}}.percent),
    message    = IF(VALUES(attempt) >= {{job_progress}}.attempt, VALUES(message), {{job_progress}}.message),
    updated_at = IF(VALUES(attempt) >= {{job_progress}}.attempt, VALUES(updated_at), {{job_progress}}.updated_at),
    attempt    = GREATEST({{job_progress}}.attempt, VALUES(attempt))
