-- Soak: the jobs table's dead and live tuples, vacuum counts (pg_stat_user_tables) and sizes.
-- Parameters: the table name (regclass text) three times, e.g. "skipjack_bench"."skipjack_jobs".
SELECT s.n_dead_tup,
       s.n_live_tup,
       s.autovacuum_count + s.vacuum_count,
       pg_relation_size(?::regclass),
       pg_indexes_size(?::regclass)
FROM pg_stat_user_tables AS s
WHERE s.relid = ?::regclass
