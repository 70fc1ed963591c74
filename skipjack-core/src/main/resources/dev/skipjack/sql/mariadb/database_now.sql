-- The database clock (as Skipjack reads it, see DatabaseClock), in whole epoch seconds: the
-- throughput buckets are aligned to the server's time, not the client's. Plain arithmetic on the
-- UTC DATETIME, so the session's time zone never enters.
SELECT TIMESTAMPDIFF(SECOND, CAST('1970-01-01 00:00:00' AS DATETIME(6)), {{now}})
