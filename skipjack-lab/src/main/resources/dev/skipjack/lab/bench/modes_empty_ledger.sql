-- Empties the modes workload's ledger before a drain.
DELETE FROM {{schema}}.{{prefix}}bench_ledger
