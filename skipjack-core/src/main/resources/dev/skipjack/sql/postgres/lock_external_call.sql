-- Two-phase mode (F-5): the worker holds this session-level advisory lock, keyed by the prepared
-- transaction's global id, from PREPARE TRANSACTION until its COMMIT or ROLLBACK PREPARED, so
-- that a resolver can tell a live worker still in its external call (however long it takes) from
-- a dead one, whose session, and lock, are gone. A hash collision only makes a resolver wait a
-- round. Taken after the PREPARE, in auto-commit: a prepared transaction cannot hold it.
-- Parameters: global id.
SELECT pg_advisory_lock(hashtextextended(?, 0))
