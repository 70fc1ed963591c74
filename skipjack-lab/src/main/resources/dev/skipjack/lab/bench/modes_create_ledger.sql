-- The modes workload's ledger: the one row per job its insert variants write (lease_insert on a
-- connection of its own, transactional_insert in the job's transaction). No key, no index: the
-- cheapest write there is.
CREATE TABLE IF NOT EXISTS {{schema}}.{{prefix}}bench_ledger (job_id BIGINT NOT NULL)
