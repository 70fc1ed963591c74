-- scale: database connections right now, sampled every 50 ms during a drain. The workers' pools
-- name themselves with application_name (in-process and in worker JVMs alike), so the bench's own
-- pool is told apart; the sampler's own backend is left out of every count.
-- Index: none; pg_stat_activity is a view over shared memory, one row per backend.
-- Parameters: the workers' application name (twice).
SELECT count(*) FILTER (WHERE application_name = ?),
       count(*) FILTER (WHERE application_name = ? AND state <> 'idle'),
       count(*)
FROM pg_stat_activity
WHERE datname = current_database()
  AND backend_type = 'client backend'
  AND pid <> pg_backend_pid()
