-- The schemas that hold a jobs table of this name (parameter: the prefixed table name), for
-- saying where Skipjack's tables are when the configured schema has none.
SELECT n.nspname
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname = ? AND c.relkind IN ('r', 'p')
ORDER BY n.nspname
