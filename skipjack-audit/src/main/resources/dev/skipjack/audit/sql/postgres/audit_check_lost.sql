-- Audit check: completed jobs with no audit row for the attempt that completed them. The counting
-- execution must be the one the audit saw; a completion without it means work was lost (or a
-- stale execution's acknowledgement counted).
-- Index: audit_executions_job_idx (job_id, attempt).
SELECT count(*), array_to_string((array_agg(j.id ORDER BY j.id))[1:10], ', ')
FROM {{jobs}} j
WHERE j.state = 'completed'
  AND NOT EXISTS (SELECT 1 FROM {{audit_executions}} a WHERE a.job_id = j.id AND a.attempt = j.attempt)
