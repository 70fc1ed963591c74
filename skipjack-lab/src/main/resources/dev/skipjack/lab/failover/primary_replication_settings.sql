-- On a data node: the replication settings in effect now (pg_auto_failover sets
-- synchronous_standby_names on the primary as standbys join, leave and change quorum), and the
-- server's version and port, to name the node a connection reached.
-- Index: none; settings and functions.
SELECT current_setting('synchronous_standby_names'), current_setting('synchronous_commit'),
       current_setting('server_version'), inet_server_port()
