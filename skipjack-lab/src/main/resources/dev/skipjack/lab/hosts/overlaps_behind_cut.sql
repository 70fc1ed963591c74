-- hosts: overlapping executions (as the audit checker counts them) in which one side is an
-- execution of the cut host that began before the cut and ended after it: a handler that outlived
-- its lease behind the cut (its audit write waited on the dead link, and a blocked JDBC read
-- ignores the interrupt that abandons it). Expected, and harmless as long as its completion is
-- refused (cut_outcome.sql's stale_completions); every other overlap is a violation.
-- Index: audit_executions_job_idx (job_id, attempt).
-- Parameters: the cut worker, the cut time, the cut time again; the same three for the other side.
SELECT count(*)
FROM {{audit_executions}} a
JOIN {{audit_executions}} b ON b.job_id = a.job_id AND b.id > a.id
WHERE a.started_at IS NOT NULL
  AND b.started_at IS NOT NULL
  AND a.started_at < b.finished_at
  AND b.started_at < a.finished_at
  AND ((a.worker = ? AND a.started_at < ?::timestamptz AND a.finished_at > ?::timestamptz)
    OR (b.worker = ? AND b.started_at < ?::timestamptz AND b.finished_at > ?::timestamptz))
