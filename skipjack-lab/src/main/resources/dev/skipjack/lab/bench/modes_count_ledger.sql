-- Ledger rows (modes workload): one per completed job of the insert variant, or the handler's
-- writes did not commit with the jobs.
SELECT count(*) FROM {{schema}}.{{prefix}}bench_ledger
