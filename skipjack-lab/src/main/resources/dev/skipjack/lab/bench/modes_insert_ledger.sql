-- One ledger row for a job (modes workload: lease_insert and transactional_insert).
-- Parameters: job id.
INSERT INTO {{schema}}.{{prefix}}bench_ledger (job_id) VALUES (?)
