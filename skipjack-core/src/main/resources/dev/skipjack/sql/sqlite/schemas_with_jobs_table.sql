-- SQLite has one schema per file (main): whether it holds a jobs table of this name (parameter:
-- the prefixed table name).
SELECT 'main'
FROM sqlite_master
WHERE type = 'table' AND name = ?
