-- Serves the audit checker's per-job joins (lost, duplicates, overlaps). SQLite names the index by
-- schema and its table without one.
CREATE INDEX IF NOT EXISTS {{schema}}.{{prefix}}audit_executions_job_idx ON "{{prefix}}audit_executions" (job_id, attempt)
