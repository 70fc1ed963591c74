-- hosts: open connections of each worker host right now, sampled every 500 ms. Every host's
-- worker JVM names its pool's connections "<prefix><host> <schema>" (application_name), so the
-- connections of one host are told apart from the others' and from the driver's own.
-- Index: none; pg_stat_activity is a view over shared memory, one row per backend.
-- Parameters: the application-name pattern (LIKE).
SELECT application_name, count(*)
FROM pg_stat_activity
WHERE application_name LIKE ?
GROUP BY application_name
