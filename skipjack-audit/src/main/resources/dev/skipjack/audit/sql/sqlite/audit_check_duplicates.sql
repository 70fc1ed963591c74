-- Audit check: executions beyond the one that counts, split into explained and unexplained.
-- An extra execution is one of several audit rows of a job that is not the first row of the
-- job's final attempt. It is explained only when all of these hold: lease mode (parameter 1 true);
-- an earlier attempt than the one that counted; and a fault was recorded against its worker (or
-- against every worker, '*') after it started (times in epoch microseconds). Two rows of the same
-- attempt are never explained: two workers held the same lease. Returns explained, unexplained,
-- up to 10 unexplained ids as text.
-- Index: audit_executions_job_idx (job_id, attempt).
-- Parameters: lease mode (boolean).
WITH extra AS (
    SELECT a.job_id, a.attempt, a.worker, a.started_at, a.finished_at
    FROM {{audit_executions}} a
    JOIN {{jobs}} j ON j.id = a.job_id
    WHERE a.id <> (SELECT min(b.id) FROM {{audit_executions}} b
                   WHERE b.job_id = a.job_id
                     AND b.attempt = (SELECT max(c.attempt) FROM {{audit_executions}} c WHERE c.job_id = a.job_id))
), judged AS (
    SELECT e.job_id,
           (?
            AND e.attempt < (SELECT max(c.attempt) FROM {{audit_executions}} c WHERE c.job_id = e.job_id)
            AND EXISTS (SELECT 1 FROM {{audit_faults}} f
                        WHERE f.worker IN (e.worker, '*')
                          AND f.at >= coalesce(e.started_at, e.finished_at) - 1000000)) AS explained
    FROM extra e
)
SELECT (SELECT count(*) FROM judged WHERE explained),
       (SELECT count(*) FROM judged WHERE NOT explained),
       (SELECT group_concat(job_id, ', ' ORDER BY job_id)
        FROM (SELECT job_id FROM judged WHERE NOT explained ORDER BY job_id LIMIT 10))
