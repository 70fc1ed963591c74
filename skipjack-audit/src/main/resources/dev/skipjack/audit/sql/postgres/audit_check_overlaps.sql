-- Audit check: two executions of one job that ran at the same time (their [started_at,
-- finished_at] intervals intersect), i.e. two workers each believed it held the job's lease.
-- Index: audit_executions_job_idx (job_id, attempt).
SELECT count(*), array_to_string((array_agg(a.job_id ORDER BY a.job_id))[1:10], ', ')
FROM {{audit_executions}} a
JOIN {{audit_executions}} b ON b.job_id = a.job_id AND b.id > a.id
WHERE a.started_at IS NOT NULL
  AND b.started_at IS NOT NULL
  AND a.started_at < b.finished_at
  AND b.started_at < a.finished_at
