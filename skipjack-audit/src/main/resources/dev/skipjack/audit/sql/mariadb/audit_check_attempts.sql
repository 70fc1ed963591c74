-- Audit check: attempts and error histories that do not add up. Every failed attempt leaves one
-- error entry, so a completed job has attempt - 1 entries and a discarded one attempt entries
-- (workloads checked this way do not snooze); no entry names an attempt the job never reached,
-- and no audit row names one either. Returns the count and up to 10 example ids as text.
-- Index: none for the jobs scan; audit_executions_job_idx for the audit probe. Run once after a test.
WITH hit AS (
    SELECT j.id
    FROM {{jobs}} j
    WHERE (j.state = 'completed' AND JSON_LENGTH(j.errors) <> j.attempt - 1)
       OR (j.state = 'discarded' AND JSON_LENGTH(j.errors) <> j.attempt)
       OR EXISTS (SELECT 1 FROM JSON_TABLE(j.errors, '$[*]' COLUMNS (attempt INT PATH '$.attempt')) e
                  WHERE e.attempt NOT BETWEEN 1 AND j.attempt)
       OR EXISTS (SELECT 1 FROM {{audit_executions}} a WHERE a.job_id = j.id AND a.attempt > j.attempt)
)
SELECT (SELECT COUNT(*) FROM hit),
       (SELECT GROUP_CONCAT(id ORDER BY id SEPARATOR ', ') FROM (SELECT id FROM hit ORDER BY id LIMIT 10) e)
