-- Serves the audit checker's per-job joins (lost, duplicates, overlaps).
CREATE INDEX IF NOT EXISTS {{prefix}}audit_executions_job_idx ON {{audit_executions}} (job_id, attempt)
