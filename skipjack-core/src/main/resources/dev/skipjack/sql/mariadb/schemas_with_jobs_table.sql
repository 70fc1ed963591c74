-- The databases (MariaDB's schemas) that hold a jobs table of this name (parameter: the prefixed
-- table name), for saying where Skipjack's tables are when the configured one has none.
SELECT table_schema
FROM information_schema.tables
WHERE table_name = ? AND table_type = 'BASE TABLE'
ORDER BY table_schema
