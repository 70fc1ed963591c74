-- pg_auto_failover's monitor: every node of the default formation, the state it reported last and
-- the state the monitor assigned it (what `pg_autoctl show state` prints).
-- Index: none; the monitor's node table holds one row per node (here two).
SELECT nodename, nodeport, current_group_state::text, assigned_group_state::text
FROM pgautofailover.current_state('default')
ORDER BY node_id
