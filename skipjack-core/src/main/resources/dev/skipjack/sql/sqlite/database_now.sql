-- The database clock (as Skipjack reads it, see DatabaseClock), in whole epoch seconds: the
-- throughput buckets are aligned to the database's time, not the client's.
SELECT {{now}} / 1000000
