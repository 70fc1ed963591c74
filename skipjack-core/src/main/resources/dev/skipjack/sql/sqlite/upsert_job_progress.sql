-- Job reports (issue 12, item 6): records the latest progress a handler reported, for executions
-- this worker runs; one row per job. Guarded like every execution write (the job running with this
-- attempt), and a row of a newer attempt is never overwritten by an older one.
-- The lists are JSON arrays paired by position (json_each's key; see complete_jobs.sql).
-- Index: the jobs' and job_progress' primary keys ('+state': the guard is checked on the row, never by
-- a scan of the partial lease index; see extend_leases.sql).
-- Parameters: ?1 job ids, ?2 attempts, ?3 percents, ?4 messages (or null) (JSON arrays).
WITH v_att AS MATERIALIZED (SELECT key, value FROM json_each(?2)),
     v_pct AS MATERIALIZED (SELECT key, value FROM json_each(?3)),
     v_msg AS MATERIALIZED (SELECT key, value FROM json_each(?4))
INSERT INTO {{job_progress}} (job_id, attempt, percent, message, updated_at)
SELECT v_id.value, v_att.value, v_pct.value, v_msg.value, {{statement_now}}
FROM json_each(?1) AS v_id
JOIN v_att ON v_att.key = v_id.key
JOIN v_pct ON v_pct.key = v_id.key
JOIN v_msg ON v_msg.key = v_id.key
JOIN {{jobs}} AS j ON j.id = v_id.value
WHERE j.attempt = v_att.value
  AND +j.state = 'running'
ON CONFLICT (job_id) DO UPDATE
SET attempt    = excluded.attempt,
    percent    = excluded.percent,
    message    = excluded.message,
    updated_at = excluded.updated_at
WHERE excluded.attempt >= attempt
