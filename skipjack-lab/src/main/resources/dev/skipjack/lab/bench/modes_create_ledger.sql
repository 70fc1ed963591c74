-- The modes workload's ledger: the one row a transactional handler of its "insert" variant writes
-- per job, in the job's transaction. No key, no index: the cheapest write there is.
CREATE TABLE IF NOT EXISTS {{schema}}.{{prefix}}bench_ledger (job_id BIGINT NOT NULL)
