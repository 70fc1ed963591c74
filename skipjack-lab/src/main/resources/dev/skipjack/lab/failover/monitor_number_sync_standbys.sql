-- pg_auto_failover's monitor: how many standbys must acknowledge a commit (the formation setting
-- `number_sync_standbys`; with 0 and a standby in the replication quorum, still one: 'ANY 1').
-- Index: the formation table's primary key.
SELECT number_sync_standbys FROM pgautofailover.formation WHERE formationid = 'default'
