-- Serializes migrations of one schema and prefix across nodes: held until the migration
-- transaction ends, so a second node waits and then finds nothing left to do.
-- Parameters: the lock's name.
SELECT pg_advisory_xact_lock(hashtext(?))
