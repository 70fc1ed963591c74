-- Job reports (issue 12, item 6): appends log lines a handler reported, for executions this worker
-- runs. Guarded like every execution write: a line is written only while its job is running with
-- the line's attempt, so a stale handler (its job rescued or finished) writes nothing, and never into
-- a newer attempt (lines are keyed by their own attempt). IGNORE: a line written twice (a flush
-- retried after an ambiguous failure) is kept once, and a line of a job deleted meanwhile is dropped.
-- Index: the jobs' and job_logs' primary keys.
-- Parameters: lines (JSON array of [job id, attempt, line number, line], ascending job ids).
INSERT IGNORE INTO {{job_logs}} (job_id, attempt, seq, logged_at, line)
SELECT v.job_id, v.attempt, v.seq, {{statement_now}}, v.line
FROM JSON_TABLE(?, '$[*]' COLUMNS (job_id  BIGINT   PATH '$[0]',
                                     attempt INT      PATH '$[1]',
                                     seq     INT      PATH '$[2]',
                                     line    LONGTEXT PATH '$[3]')) AS v
STRAIGHT_JOIN {{jobs}} AS j FORCE INDEX (PRIMARY) ON j.id = v.job_id
WHERE j.attempt = v.attempt
  AND j.state = 'running'
