-- hosts: how busy the database's sessions are right now, sampled every 500 ms beside the
-- database's CPU: sessions waiting for a heavyweight lock, lock requests not granted (pg_locks),
-- and sessions running a statement. The sampler's own session is left out.
-- Index: none; both views are over shared memory.
SELECT count(*) FILTER (WHERE wait_event_type = 'Lock'),
       (SELECT count(*) FROM pg_locks WHERE NOT granted),
       count(*) FILTER (WHERE state = 'active')
FROM pg_stat_activity
WHERE backend_type = 'client backend'
  AND pid <> pg_backend_pid()
