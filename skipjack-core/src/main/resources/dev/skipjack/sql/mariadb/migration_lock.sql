-- Serializes migrations of one schema and prefix across nodes with a session lock (GET_LOCK):
-- COMMIT does not release it, so MySqlFamilyDialect.underLock releases it (migration_unlock.sql)
-- after the work committed. The name is hashed: lock names are at most 64 characters on MySQL.
-- Returns 1 when taken, 0 after the wait ran out (the caller asks again), NULL on error.
-- Parameters: the lock's name, seconds to wait.
SELECT GET_LOCK(CONCAT('skipjack-migrate:', SHA1(?)), ?)
