-- Ledger rows (modes workload): one per completed job of an insert variant (lease_insert,
-- transactional_insert), or a handler's write was lost or repeated.
SELECT count(*) FROM {{schema}}.{{prefix}}bench_ledger
