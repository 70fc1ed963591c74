-- Releases the migration lock taken by migration_lock.sql on this session.
-- Parameters: the lock's name.
SELECT RELEASE_LOCK(CONCAT('skipjack-migrate:', SHA1(?)))
