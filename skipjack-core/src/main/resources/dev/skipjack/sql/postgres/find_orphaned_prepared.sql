-- Two-phase commit (F-5): Skipjack's prepared transactions of one schema and prefix, in this
-- database, prepared longer ago than the lease: their worker died between PREPARE TRANSACTION and
-- COMMIT PREPARED (a live worker commits well within its lease).
-- Index: none; pg_prepared_xacts is a small in-memory view (at most max_prepared_transactions rows).
-- Also returns whether it was prepared longer ago than the longest external call a live worker is
-- waited for (lock_external_call.sql): past that, its lock is taken for a lost session's.
-- Parameters: longest external call in milliseconds, global id prefix, orphan age in milliseconds.
SELECT gid, prepared < {{now}} - ? * interval '1 millisecond'
FROM pg_prepared_xacts
WHERE database = current_database()
  AND starts_with(gid, ?)
  AND prepared < {{now}} - ? * interval '1 millisecond'
ORDER BY prepared
