-- The database clock (as Skipjack reads it, see DatabaseClock), in whole epoch seconds, rounded
-- down as on the other backends (a cast alone rounds to the nearest: a cron round half a second
-- before a tick read the tick's second and enqueued it early): the throughput buckets are aligned
-- to the server's time, not the client's, and cron ticks are found from it.
SELECT floor(extract(epoch FROM {{now}}))::bigint
