-- One ledger row for a job (modes workload, transactional mode with one insert).
-- Parameters: job id.
INSERT INTO {{schema}}.{{prefix}}bench_ledger (job_id) VALUES (?)
