-- SQLite has no CREATE SCHEMA: the schema is the database file ("main") or a database the
-- application attached; SqliteDialect.checkConnections made sure it exists. Nothing to create.
SELECT 1
