-- The database clock now (clock_timestamp(): not frozen at the transaction's start) in epoch
-- microseconds, for the audited worker's started_at and the tests' time checks.
-- Index: none.
SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
