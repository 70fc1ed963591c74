-- Job reports (issue 12, item 6): appends log lines a handler reported, for executions this worker
-- runs. Guarded like every execution write: a line is written only while its job is running with
-- the line's attempt, so a stale handler (its job rescued or finished) writes nothing, and never into
-- a newer attempt (lines are keyed by their own attempt). A line written twice (a flush retried
-- after an ambiguous failure) is kept once.
-- The lists are JSON arrays paired by position (json_each's key; see complete_jobs.sql).
-- Index: the jobs' and job_logs' primary keys ('+state': the guard is checked on the row, never by a
-- scan of the partial lease index; see extend_leases.sql).
-- Parameters: ?1 job ids, ?2 attempts, ?3 line numbers, ?4 lines (JSON arrays).
WITH v_att AS MATERIALIZED (SELECT key, value FROM json_each(?2)),
     v_seq AS MATERIALIZED (SELECT key, value FROM json_each(?3)),
     v_line AS MATERIALIZED (SELECT key, value FROM json_each(?4))
INSERT INTO {{job_logs}} (job_id, attempt, seq, logged_at, line)
SELECT v_id.value, v_att.value, v_seq.value, {{statement_now}}, v_line.value
FROM json_each(?1) AS v_id
JOIN v_att ON v_att.key = v_id.key
JOIN v_seq ON v_seq.key = v_id.key
JOIN v_line ON v_line.key = v_id.key
JOIN {{jobs}} AS j ON j.id = v_id.value
WHERE j.attempt = v_att.value
  AND +j.state = 'running'
ON CONFLICT (job_id, attempt, seq) DO NOTHING
