-- A transaction with an id of its own: its commit waits for the synchronous standby like any write,
-- and its commit record follows every commit an earlier read on this server saw. Once it returns,
-- all of those are on the standby too, so what the read saw is what a failover must keep.
-- Index: none.
SELECT txid_current()
