-- On the primary: WAL bytes written here that the standby has not been sent yet, and not yet
-- flushed. A hard stop of the primary can lose what the standby has not flushed: what was sent but
-- not read is dropped with the connection when the dead primary's host resets it (here, on one
-- machine, always), and what was not sent is gone. Commits that do not wait for the standby
-- (async) can be among them. Both 0 without a standby connected.
-- Index: none; pg_stat_replication has one row per standby.
SELECT coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), sent_lsn)), 0)::bigint,
       coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn)), 0)::bigint
FROM pg_stat_replication
