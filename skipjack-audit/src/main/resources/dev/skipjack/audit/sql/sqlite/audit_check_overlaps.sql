-- Audit check: two executions of one job that ran at the same time (their [started_at,
-- finished_at] intervals intersect), i.e. two workers each believed it held the job's lease.
-- Returns the count and up to 10 example job ids as text.
-- Index: audit_executions_job_idx (job_id, attempt).
WITH hit AS (
    SELECT a.job_id
    FROM {{audit_executions}} a
    JOIN {{audit_executions}} b ON b.job_id = a.job_id AND b.id > a.id
    WHERE a.started_at IS NOT NULL
      AND b.started_at IS NOT NULL
      AND a.started_at < b.finished_at
      AND b.started_at < a.finished_at
)
SELECT (SELECT count(*) FROM hit),
       (SELECT group_concat(job_id, ', ' ORDER BY job_id) FROM (SELECT job_id FROM hit ORDER BY job_id LIMIT 10))
