-- Audit check: completed jobs with no audit row for the attempt that completed them. The counting
-- execution must be the one the audit saw; a completion without it means work was lost (or a
-- stale execution's acknowledgement counted). Returns the count and up to 10 example ids as text.
-- Index: audit_executions_job_idx (job_id, attempt).
WITH hit AS (
    SELECT j.id
    FROM {{jobs}} j
    WHERE j.state = 'completed'
      AND NOT EXISTS (SELECT 1 FROM {{audit_executions}} a WHERE a.job_id = j.id AND a.attempt = j.attempt)
)
SELECT (SELECT COUNT(*) FROM hit),
       (SELECT GROUP_CONCAT(id ORDER BY id SEPARATOR ', ') FROM (SELECT id FROM hit ORDER BY id LIMIT 10) e)
