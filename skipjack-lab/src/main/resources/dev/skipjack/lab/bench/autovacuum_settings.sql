-- Soak: the server's autovacuum settings, printed with the soak's result because the dead tuples
-- and table size it reports depend on them.
SELECT name, setting, coalesce(unit, '')
FROM pg_settings
WHERE name IN ('autovacuum', 'autovacuum_naptime', 'autovacuum_vacuum_scale_factor',
               'autovacuum_vacuum_threshold', 'autovacuum_vacuum_cost_delay', 'autovacuum_vacuum_cost_limit')
ORDER BY name
