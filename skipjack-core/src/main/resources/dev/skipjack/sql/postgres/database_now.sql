-- The database clock (as Skipjack reads it, see DatabaseClock), in whole epoch seconds: the
-- throughput buckets are aligned to the server's time, not the client's.
SELECT extract(epoch FROM {{now}})::bigint
