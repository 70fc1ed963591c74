-- The database clock now in epoch microseconds (UTC_TIMESTAMP: independent of the session time
-- zone), for the audited worker's started_at and the tests' time checks.
-- Index: none.
SELECT TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', UTC_TIMESTAMP(6))
