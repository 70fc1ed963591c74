-- Audit check: attempts and error histories that do not add up. Every failed attempt leaves one
-- error entry, so a completed job has attempt - 1 entries and a discarded one attempt entries
-- (workloads checked this way do not snooze); no entry names an attempt the job never reached,
-- and no audit row names one either.
-- Index: none for the jobs scan; audit_executions_job_idx for the audit probe. Run once after a test.
SELECT count(*), array_to_string((array_agg(j.id ORDER BY j.id))[1:10], ', ')
FROM {{jobs}} j
WHERE (j.state = 'completed' AND jsonb_array_length(j.errors) <> j.attempt - 1)
   OR (j.state = 'discarded' AND jsonb_array_length(j.errors) <> j.attempt)
   OR EXISTS (SELECT 1 FROM jsonb_array_elements(j.errors) e
              WHERE (e ->> 'attempt')::int NOT BETWEEN 1 AND j.attempt)
   OR EXISTS (SELECT 1 FROM {{audit_executions}} a WHERE a.job_id = j.id AND a.attempt > j.attempt)
